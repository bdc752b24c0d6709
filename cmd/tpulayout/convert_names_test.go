package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// TestConvertPadExact checks that a --pad number OUT's element type cannot hold exactly
// is a usage error naming the type's range (or the value it would become), not a
// silent clamp, truncation or rounding; and that the values it can hold are written.
func TestConvertPadExact(t *testing.T) {
	dir := t.TempDir()
	in := fixtures + "f32_20x300.npy"
	out := filepath.Join(dir, "out.bin")
	to := func(dt string) string { return dt + "[20,300]{1,0:T(8,128)}" }
	for _, c := range []struct {
		dt, pad string
		wants   []string
	}{
		{"u8", "300", []string{"--pad 300", "u8's range 0 to 255"}},
		{"u8", "-1", []string{"--pad -1", "u8's range 0 to 255"}},
		{"s32", "1.5", []string{"--pad 1.5", "not a whole number", "-2147483648 to 2147483647"}},
		{"s4", "9", []string{"--pad 9", "s4's range -8 to 7"}},
		{"s64", "9007199254740993", []string{"float64", "9007199254740992"}},
		{"f64", "9007199254740993", []string{"not exact in f64", "9007199254740992"}},
		{"u64", "18446744073709551615", []string{"float64", "18446744073709551616"}},
		{"f32", "1e39", []string{"f32's range"}},
		{"bf16", "0.1", []string{"not exact in bf16", "0.10009765625"}},
		{"f8e4m3fn", "-inf", []string{"f8e4m3fn has no -Inf"}},
		{"pred", "2", []string{"pred's range 0 to 1"}},
		{"u8", "nan", []string{"not a whole number"}},
		{"c64", "1", []string{"c64 padding can only be zero or leave"}},
		{"f32", "", []string{`bad --pad ""`}},
		{"f32", "1e400", []string{"--pad 1e400", "float64's range"}},
	} {
		wantUsageError(t, []string{"convert", in, out, "--to", to(c.dt), "--pad", c.pad}, c.wants...)
	}
	if names := testfiles.DirNames(t, dir); len(names) != 0 {
		t.Errorf("bad pads left %q", names)
	}

	// --all checks every tensor's type.
	ckpt := filepath.Join(dir, "m.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{
		{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[8,128]", 1)}, {Name: "q", Buf: testfiles.RandomBuffer(t, "s8[8,100]", 2)},
	}, nil); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"convert", ckpt, filepath.Join(dir, "imgs"), "--all", "--to", "tpu:v5e", "--pad", "200"}, `tensor "q"`, "s8's range -128 to 127")

	for _, c := range []struct {
		dt, pad string
		bits    uint64
	}{{"u8", "255", 0xff}, {"s4", "-8", 0x8}, {"s64", "-9007199254740992", 0xffe0000000000000}, {"bf16", "0.10009765625", 0x3dcd}, {"f32", "-0", 0x80000000}} {
		mustRun(t, "convert", in, out, "--to", to(c.dt), "--pad", c.pad)
		img, err := buffer.ReadRaw(out, layout.MustParse(to(c.dt)))
		if err != nil {
			t.Fatal(err)
		}
		if got := img.BitsAt(img.Indexer().FootprintElements() - 1); got != c.bits { // the last element is padding
			t.Errorf("%s --pad %s: padding %#x, want %#x", c.dt, c.pad, got, c.bits)
		}
		img.Close()
	}
}

// TestValidateTolRepeatedKey checks that a tolerance key given twice, in one --tol or
// across two, is an error rather than the last one silently winning.
func TestValidateTolRepeatedKey(t *testing.T) {
	for _, tol := range [][]string{{"--tol", "abs=1,abs=2"}, {"--tol", "ulp=1,ULP=1"}, {"--tol", "rel=1", "--tol", "abs=1,rel=2"}} {
		wantUsageError(t, append([]string{"validate", goodBF16, "--layout", bf16Layout, "--ref", refF32}, tol...), "given twice")
	}
	mustRun(t, "validate", goodBF16, "--layout", bf16Layout, "--ref", refF32, "--tol", "ulp=1", "--tol", "abs=1,rel=0.5")
}

// TestConvertAllNames checks --all with tensor names that hold control characters and
// terminal escapes (printed quoted, never raw), names too long for a file name (a
// shortened name with a hash, distinct for names that share a long beginning), and
// names that differ only in case (distinct files, for file systems that ignore case).
func TestConvertAllNames(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("layer.", 60)
	names := []string{"red\x1b[31m!", "tab\there", "nl\nx", long + "a", long + "b", "W", "w"}
	var bufs []safetensors.NamedBuffer
	for i, n := range names {
		bufs = append(bufs, safetensors.NamedBuffer{Name: n, Buf: testfiles.RandomBuffer(t, "f32[8,128]", uint64(i))})
	}
	ckpt := filepath.Join(dir, "m.safetensors")
	if err := safetensors.Write(ckpt, bufs, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "imgs")
	got := mustRun(t, "convert", ckpt, out, "--all", "--to", "tpu:v5e")
	if strings.ContainsAny(got, "\x1b\t") || strings.Count(got, "\n") != len(names)+1 {
		t.Errorf("the table prints names raw:\n%q", got)
	}
	for _, q := range []string{`"red\x1b[31m!"`, `"tab\there"`, `"nl\nx"`} {
		if !strings.Contains(got, q) {
			t.Errorf("the table does not show %s:\n%s", q, got)
		}
	}
	var m convert.Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for i, e := range m.Tensors {
		if e.Name != names[i] || len(e.File) > 200 || files[strings.ToLower(e.File)] {
			t.Errorf("tensor %q: file %q (%d bytes)", e.Name, e.File, len(e.File))
		}
		files[strings.ToLower(e.File)] = true
		if b := readFile(t, filepath.Join(out, e.File)); len(b) != 8*128*4 {
			t.Errorf("tensor %q: %s holds %d bytes", e.Name, e.File, len(b))
		}
	}
}
