package xlagolden

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recording holds every type of Types and Widened, one result per input, and
// agrees with conversions that are exact: f32 → f64 (XLA flushes subnormal inputs to
// zero) and bf16 → f32.
func TestLoad(t *testing.T) {
	g := Load(t)
	if g != Load(t) {
		t.Error("a second Load read the recording again")
	}
	if len(g.From) != len(Types) || len(g.To) != len(Widened) || len(g.Input) == 0 {
		t.Fatalf("%d inputs, %d types from f32, %d widened", len(g.Input), len(g.From), len(g.To))
	}
	f64 := g.From["f64"]
	for i, in := range g.Input {
		want := math.Float64bits(float64(math.Float32frombits(in)))
		if IsSubnormal(in) {
			want &= 1 << 63
		}
		if got := f64.At(i); got != want && !math.IsNaN(float64(math.Float32frombits(in))) {
			t.Fatalf("input %#08x: f64 bits %#x, want %#x", in, got, want)
		}
	}
	for _, c := range []struct {
		ty    string
		width int
	}{{"s8", 1}, {"bf16", 2}, {"s32", 4}, {"f64", 8}} {
		if w := g.From[c.ty].width; w != c.width || g.From[c.ty].Len() != len(g.Input) {
			t.Errorf("%s: width %d, %d values", c.ty, w, g.From[c.ty].Len())
		}
	}
	bf := g.To["bf16"]
	if len(bf.Pattern) != 1<<16 {
		t.Fatalf("bf16: %d patterns", len(bf.Pattern))
	}
	for i, p := range bf.Pattern {
		if f := uint32(p) << 16; bf.F32[i] != f && !math.IsNaN(float64(math.Float32frombits(f))) {
			t.Fatalf("bf16 %#04x widens to %#08x, want %#08x", p, bf.F32[i], f)
		}
	}
}

func TestIsSubnormal(t *testing.T) {
	for _, c := range []struct {
		bits uint32
		want bool
	}{{0, false}, {0x80000000, false}, {1, true}, {0x807fffff, true}, {0x00800000, false}, {0x7f800001, false}} {
		if IsSubnormal(c.bits) != c.want {
			t.Errorf("IsSubnormal(%#08x) = %v", c.bits, !c.want)
		}
	}
}

// npyFile is an .npy file of version 1 (or 2) with header h and n data bytes.
func npyFile(version byte, h string, n int) string {
	b := []byte("\x93NUMPY")
	b = append(b, version, 0)
	if version == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
	}
	return string(append(append(b, h...), make([]byte, n)...))
}

func header(descr, shape string) string {
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
}

// A recording that is not whole, or holds what the reader does not read, is an error
// naming the file and what is wrong.
func TestReadRefuses(t *testing.T) {
	input := npyFile(1, header("<f4", "2,"), 8)
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no input", map[string]string{"README": "x"}, "no 1-D input_f32.npy"},
		{"no types", map[string]string{"input_f32.npy": input}, "xla_from_f32_bf16.npy missing"},
		{"not npy", map[string]string{"input_f32.npy": "hello, world"}, "input_f32.npy: not an .npy file"},
		{"version 9", map[string]string{"input_f32.npy": npyFile(9, "", 0)}, "unknown .npy version 9"},
		{"short v2", map[string]string{"input_f32.npy": "\x93NUMPY\x02\x00\x00\x00"}, "truncated header"},
		{"long header", map[string]string{"input_f32.npy": npyFile(1, "{}", 0)[:11]}, "truncated header"},
		{"v2 input, short data", map[string]string{"input_f32.npy": npyFile(2, header("<f4", "2,"), 7)}, "7 data bytes for 2 values of 4 bytes"},
		{"signed", map[string]string{"input_f32.npy": npyFile(1, header("<i4", "2,"), 8)}, "want C-ordered unsigned integers or f32"},
		{"no shape", map[string]string{"input_f32.npy": npyFile(1, "{'descr': '<u4', 'fortran_order': False}", 8)}, "no shape"},
		{"bad shape", map[string]string{"input_f32.npy": npyFile(1, header("<u4", "two,"), 8)}, "shape: strconv.Atoi"},
		{"from not per input", map[string]string{"input_f32.npy": input, "xla_from_f32_bf16.npy": npyFile(1, header("<u2", "3,"), 6)}, "xla_from_f32_bf16.npy missing or not one value per input"},
	} {
		p := filepath.Join(t.TempDir(), "c.zip")
		writeZip(t, p, c.files)
		if _, err := read(p); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := read(filepath.Join(t.TempDir(), "none.zip")); err == nil {
		t.Error("a missing recording read")
	}
}

// A recording whose widened arrays are not two rows of 32-bit values is refused.
func TestReadRefusesWidening(t *testing.T) {
	files := map[string]string{"input_f32.npy": npyFile(1, header("<f4", "1,"), 4)}
	for _, ty := range Types {
		files["xla_from_f32_"+ty+".npy"] = npyFile(1, header("<u8", "1,"), 8)
	}
	p := filepath.Join(t.TempDir(), "c.zip")
	writeZip(t, p, files)
	if _, err := read(p); err == nil || !strings.Contains(err.Error(), "xla_to_f32_bf16.npy missing or not two rows") {
		t.Errorf("no widenings: %v", err)
	}
	for _, ty := range Widened {
		files["xla_to_f32_"+ty+".npy"] = npyFile(1, header("<u4", "2, 3"), 24)
	}
	writeZip(t, p, files)
	g, err := read(p)
	if err != nil || len(g.To["s4"].Pattern) != 3 || g.From["u8"].At(0) != 0 {
		t.Errorf("a whole recording: %+v, %v", g, err)
	}
}

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, body := range files {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
