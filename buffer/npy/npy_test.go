package npy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/internal/fixture"
	"github.com/tpulayout/tpulayout/layout"
)

type npyExpect struct {
	Descr   string        `json:"descr"`
	Fortran bool          `json:"fortran"`
	Shape   []int64       `json:"shape"`
	Version []int         `json:"version"`
	Bits    []json.Number `json:"bits"`
	Values  []json.Number `json:"values"`
}

func npyPath(name string) string { return filepath.Join("..", "..", "testdata", "npy", name) }

func TestReadNPYFixtures(t *testing.T) {
	var exp map[string]npyExpect
	fixture.LoadJSON(t, npyPath("expected.json"), &exp)
	if len(exp) < 20 {
		t.Fatalf("only %d fixtures", len(exp))
	}
	for _, mapped := range []bool{false, true} {
		if mapped {
			old := buffer.MmapThreshold
			buffer.MmapThreshold = 1
			defer func() { buffer.MmapThreshold = old }()
		}
		for name, e := range exp {
			var opts []Option
			if name == "bf16_u2.npy" {
				opts = append(opts, BF16AsU2())
			}
			b, err := Read(npyPath(name), opts...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(b.Dims(), e.Shape) {
				t.Fatalf("%s: dims %v, want %v", name, b.Dims(), e.Shape)
			}
			wantMapped := mapped && b.Len() > 0 && !strings.HasPrefix(e.Descr, ">")
			if b.Mapped() != wantMapped {
				t.Errorf("%s: Mapped() = %v, want %v", name, b.Mapped(), wantMapped)
			}
			if e.Fortran && b.Rank() > 1 {
				if m := b.Shape.Layout.MinorToMajor; m[0] != 0 || m[1] != 1 {
					t.Errorf("%s: Fortran order read with layout %v", name, m)
				}
			}
			if strings.HasPrefix(name, "bf16") && b.DType() != layout.BF16 {
				t.Errorf("%s: dtype %v, want bf16", name, b.DType())
			}
			fixture.CheckElements(t, name, b, e.Bits, e.Values)
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Without the option, '<u2' is u16.
	b, err := Read(npyPath("bf16_u2.npy"))
	if err != nil || b.DType() != layout.U16 {
		t.Fatalf("bf16_u2.npy without BF16AsU2: %v, %v", b, err)
	}
}

func TestReadNPYHeader(t *testing.T) {
	f, err := os.Open(npyPath("v2_i4.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	if h.Major != 2 || h.Descr != "<i4" || h.DType != layout.S32 || !slices.Equal(h.Shape, []int64{2, 3}) || h.DataOffset%64 != 0 {
		t.Fatalf("header %+v", h)
	}
}

// TestWriteNPYMatchesNumPy: reading a NumPy file and writing it back gives NumPy's bytes.
func TestWriteNPYMatchesNumPy(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f32_c.npy", "f32_f.npy", "f32_3d.npy", "f32_f3d.npy", "f64.npy", "f16.npy", "int8.npy",
		"uint64.npy", "bool.npy", "scalar.npy", "empty.npy", "int16.npy", "uint32.npy"} {
		b, err := Read(npyPath(name))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if err := Write(out, b); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(npyPath(name))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: written bytes differ from NumPy's\n got %q\nwant %q", name, got[:min(len(got), 128)], want[:min(len(want), 128)])
		}
	}
}

func TestWriteNPYRoundTrip(t *testing.T) {
	dir := t.TempDir()
	// bf16 as <V2 (default) and <u2; a big-endian input written back little-endian.
	bf, err := Read(npyPath("bf16_v2.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]Option{nil, {BF16AsU2()}} {
		p := filepath.Join(dir, "bf.npy")
		if err := Write(p, bf, opts...); err != nil {
			t.Fatal(err)
		}
		h := readHeader(t, p, opts...)
		want := "<V2"
		if opts != nil {
			want = "<u2"
		}
		if h.Descr != want || h.DataOffset%64 != 0 {
			t.Fatalf("bf16 written as %q at %d", h.Descr, h.DataOffset)
		}
		back, err := Read(p, opts...)
		if err != nil || !bytes.Equal(back.Data, bf.Data) || back.DType() != layout.BF16 {
			t.Fatalf("bf16 round trip: %v", err)
		}
	}
	be, err := Read(npyPath("be_f4.npy"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "le.npy")
	if err := Write(p, be); err != nil {
		t.Fatal(err)
	}
	if h := readHeader(t, p); h.Descr != "<f4" {
		t.Fatalf("big-endian input written as %q", h.Descr)
	}
	// A tiled buffer is written in C order.
	tb := buffer.MustNew(layout.MustParse("f32[3,5]{1,0:T(2,2)}"))
	rm := buffer.MustNew(layout.MustParse("f32[3,5]"))
	idx := make([]int64, 2)
	for k := float32(0); ; k++ {
		tb.SetF32(idx, k)
		rm.SetF32(idx, k)
		if !layout.NextIndex(idx, tb.Dims()) {
			break
		}
	}
	if err := Write(p, tb); err != nil {
		t.Fatal(err)
	}
	back, err := Read(p)
	if err != nil || !bytes.Equal(back.Data, rm.Data) || !back.IsRowMajorDense() {
		t.Fatalf("tiled write: %v", err)
	}
	// Packed s4 has no descr.
	if err := Write(p, buffer.MustNew(layout.MustParse("s4[4]{0:E(4)}"))); !errors.Is(err, buffer.ErrDType) {
		t.Fatalf("s4 write: %v", err)
	}
	// A large header (version 2.0).
	huge := make([]int64, 0, 30000)
	for range 30000 {
		huge = append(huge, 1)
	}
	hb := npyHeaderBytes("<f4", false, huge)
	h, err := ReadHeader(bytes.NewReader(hb))
	if err != nil || h.Major != 2 || len(h.Shape) != 30000 || len(hb)%64 != 0 {
		t.Fatalf("v2 header: %v", err)
	}
}

func readHeader(t *testing.T, p string, opts ...Option) *Header {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHeader(f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestReadNPYErrors(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(npyPath("f32_c.npy"))
	hdr := func(dict string) []byte { return npyHeaderBytesRaw(dict) }
	for _, c := range []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"truncated", good[:len(good)-4], buffer.ErrSize, "48"},
		{"extra", append(slices.Clone(good), 0, 0, 0, 0), buffer.ErrSize, "52"},
		{"magic", append([]byte("\x93NUMPX"), good[6:]...), buffer.ErrFormat, "magic"},
		{"version", append([]byte("\x93NUMPY\x04\x00"), good[8:]...), buffer.ErrFormat, "version"},
		{"short", []byte("\x93NUM"), buffer.ErrFormat, ""},
		{"structured", hdr("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }"), buffer.ErrDType, "structured"},
		{"object", hdr("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }"), buffer.ErrDType, "|O"},
		{"negative", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"), buffer.ErrFormat, "shape"},
		{"overflow", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"), buffer.ErrFormat, "too large"},
		{"missing", hdr("{'descr': '<f4', 'shape': (2,), }"), buffer.ErrFormat, "fortran_order"},
		{"extra key", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), buffer.ErrFormat, "unexpected key"},
		{"syntax", hdr("{'descr': '<f4', 'fortran_order': Flase, 'shape': (2,), }"), buffer.ErrFormat, "Flase"},
		{"pipe f4", hdr("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }"), buffer.ErrDType, "byte order"},
	} {
		p := filepath.Join(dir, c.name+".npy")
		os.WriteFile(p, c.data, 0o644)
		_, err := Read(p)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v mentioning %q", c.name, err, c.want, c.msg)
		}
	}
}

// npyHeaderBytesRaw builds a v1 header around an arbitrary dict text.
func npyHeaderBytesRaw(dict string) []byte {
	total := (10 + len(dict) + 1 + 63) / 64 * 64
	out := []byte(npyMagic + "\x01\x00")
	out = append(out, byte(total-10), byte((total-10)>>8))
	out = append(out, dict...)
	for len(out) < total-1 {
		out = append(out, ' ')
	}
	return append(out, '\n')
}

func TestPyLiteral(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want string
	}{
		{"{'a': (1, 2,), \"b\": [True, None], 'c': 3L, 'd': ()}", true, ""},
		{"(1,)", true, ""},
		{"{'a': 1,,}", false, ""},
		{"'unterminated", false, ""},
		{"'esc\\", false, ""},
		{strings.Repeat("(", 100) + strings.Repeat(")", 100), false, "deep"},
		{"99999999999999999999", false, "range"},
		{"{1: 2}", false, "key"},
		{"{'a': 1, 'a': 2}", false, "duplicate"},
	} {
		_, err := parsePyLiteral([]byte(c.in))
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("parsePyLiteral(%q) = %v", c.in, err)
		}
	}
}

// Errors name this package, not buffer, and still match buffer's kinds and the errors
// they wrap.
func TestErrorsNameThePackage(t *testing.T) {
	_, err := ReadHeader(strings.NewReader("garbage-garbage"))
	if err == nil || !strings.HasPrefix(err.Error(), "npy: invalid file format: not a .npy file") || !errors.Is(err, buffer.ErrFormat) {
		t.Errorf("bad magic: %v", err)
	}
	_, err = ReadHeader(strings.NewReader("\x93NUMPY\x01\x00\x40"))
	if err == nil || !strings.HasPrefix(err.Error(), "npy: invalid file format: ") || !errors.Is(err, buffer.ErrFormat) ||
		!errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated header: %v", err)
	}
	_, err = HeaderFor(layout.S4, []int64{2})
	if err == nil || !strings.HasPrefix(err.Error(), "npy: unsupported element type: ") || !errors.Is(err, buffer.ErrDType) {
		t.Errorf("s4: %v", err)
	}
}

// TestReadNamed: the errors of ReadNamed call the file by the name given, in their
// text and in the Path of a *fs.PathError among them.
func TestReadNamed(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "copy.npy")
	os.WriteFile(bad, []byte("\x93NUMPY\x01\x00\x02\x00{}"), 0o644)
	_, err := ReadNamed(bad, "shown.npy")
	if err == nil || !strings.HasPrefix(err.Error(), "shown.npy: ") || strings.Contains(err.Error(), bad) {
		t.Errorf("bad header: %v", err)
	}
	_, err = ReadNamed(filepath.Join(dir, "gone.npy"), "shown.npy")
	fixture.CheckMissingNamed(t, "missing file", err, "shown.npy")
}
