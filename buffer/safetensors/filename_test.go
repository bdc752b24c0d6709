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
