package safetensors

import (
	"strings"
	"testing"
)

func TestFileStem(t *testing.T) {
	long := strings.Repeat("layer.", 60)
	for _, c := range []struct{ name, want string }{
		{"model.layers.0.w", "model.layers.0.w"},
		{"a/b c\x1b[31m", "a_b_c__31m"},
		{"..hidden", "hidden"},
		{"", "tensor"},
		{"...", "tensor"},
	} {
		if got := FileStem(c.name); got != c.want {
			t.Errorf("FileStem(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	a, b := FileStem(long+"a"), FileStem(long+"b")
	if a == b || len(a) > maxStem+17 || !strings.HasPrefix(a, "layer.layer.") {
		t.Errorf("long names: %q and %q", a, b)
	}
}

// Names are unique ignoring case, short enough for any file system, never start with
// the reserved prefix, and keep their suffix.
func TestUniqueNames(t *testing.T) {
	long := strings.Repeat("block.", 60)
	for _, u := range []*UniqueNames{{Reserved: "manifest"}, {Suffix: ".bin"}} {
		got := map[string]bool{}
		for _, name := range []string{"W", "w", long + "q", long + "k", "manifest.json", "manifest", "a/b", "a_b"} {
			f := u.Name(name)
			if got[strings.ToLower(f)] || len(f) > 200 || u.Reserved != "" && strings.HasPrefix(f, u.Reserved) ||
				strings.Contains(f, "/") || !strings.HasSuffix(f, u.Suffix) {
				t.Errorf("%+v: Name(%.20q…) = %q", u, name, f)
			}
			got[strings.ToLower(f)] = true
		}
	}
	u := UniqueNames{Suffix: ".bin"}
	if a, b, c := u.Name("W"), u.Name("w"), u.Name("w"); a != "W.bin" || b != "w-2.bin" || c != "w-3.bin" {
		t.Errorf("repeats: %q %q %q", a, b, c)
	}
	m := UniqueNames{Reserved: "manifest"}
	if a, b := m.Name("manifest"), m.Name("x"); a != "t.manifest-2" || b != "x" {
		t.Errorf("reserved: %q %q", a, b)
	}
}
