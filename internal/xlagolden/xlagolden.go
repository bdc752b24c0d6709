// Package xlagolden reads the conversions XLA recorded (testdata/xla/conversions.zip,
// see testdata/xla/README.md) for the tests of the packages that convert: every f32
// input with XLA's result bits in each type, and every bit pattern of each narrow type
// with the f32 bits XLA widens it to. It depends on the standard library alone, so the
// tests of any package (simd included) can use it.
package xlagolden

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Types are the types XLA converted the f32 inputs to (xla_from_f32_T.npy), in the
// recording's order and spelled as XLA and package layout spell them.
var Types = []string{"bf16", "f16", "f64", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "pred",
	"f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e3m4", "f8e4m3", "f8e8m0fnu",
	"f4e2m1fn", "s4", "u4", "s2", "u2"}

// Widened are the types whose every bit pattern XLA widened to f32 (xla_to_f32_T.npy).
var Widened = []string{"bf16", "f16", "s8", "u8", "s16", "u16",
	"f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e3m4", "f8e4m3", "f8e8m0fnu",
	"f4e2m1fn", "s4", "u4", "s2", "u2"}

// Goldens are the recorded conversions.
type Goldens struct {
	// Input holds the bits of the f32 inputs.
	Input []uint32
	// From maps a type of Types to XLA's result bits for each input.
	From map[string]Column
	// To maps a type of Widened to its bit patterns (Pattern) and the f32 bits XLA
	// gives for each (F32).
	To map[string]Widening
}

// Widening is one type's every bit pattern and the f32 bits of each.
type Widening struct {
	Pattern []uint64
	F32     []uint32
}

// Column is a 1-D array of unsigned values of one width, as recorded.
type Column struct {
	width int
	data  []byte
}

// Len returns the number of values.
func (c Column) Len() int { return len(c.data) / c.width }

// At returns value i, zero-extended.
func (c Column) At(i int) uint64 {
	switch c.width {
	case 1:
		return uint64(c.data[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(c.data[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(c.data[4*i:]))
	}
	return binary.LittleEndian.Uint64(c.data[8*i:])
}

var (
	once   sync.Once
	loaded *Goldens
	errLd  error
)

// Path returns the path of the recorded conversions in this checkout.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "xla", "conversions.zip")
}

// Load returns the recorded conversions, read once per test binary; it fails t if they
// cannot be read or a type of Types or Widened is missing.
func Load(t testing.TB) *Goldens {
	t.Helper()
	once.Do(func() { loaded, errLd = read(Path()) })
	if errLd != nil {
		t.Fatal(errLd)
	}
	return loaded
}

func read(path string) (*Goldens, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	arrays := map[string]npyArray{}
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".npy") {
			continue
		}
		a, err := readNPY(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		arrays[strings.TrimSuffix(f.Name, ".npy")] = a
	}
	in, ok := arrays["input_f32"]
	if !ok || in.width != 4 || in.Len() == 0 || len(in.shape) != 1 {
		return nil, fmt.Errorf("%s: no 1-D input_f32.npy of 32-bit values", path)
	}
	g := &Goldens{From: map[string]Column{}, To: map[string]Widening{}}
	g.Input = make([]uint32, in.Len())
	for i := range g.Input {
		g.Input[i] = uint32(in.At(i))
	}
	for _, ty := range Types {
		a, ok := arrays["xla_from_f32_"+ty]
		if !ok || len(a.shape) != 1 || a.Len() != len(g.Input) {
			return nil, fmt.Errorf("%s: xla_from_f32_%s.npy missing or not one value per input", path, ty)
		}
		g.From[ty] = a.Column
	}
	for _, ty := range Widened {
		a, ok := arrays["xla_to_f32_"+ty]
		if !ok || len(a.shape) != 2 || a.shape[0] != 2 || a.width != 4 {
			return nil, fmt.Errorf("%s: xla_to_f32_%s.npy missing or not two rows of 32-bit values", path, ty)
		}
		n := a.shape[1]
		w := Widening{Pattern: make([]uint64, n), F32: make([]uint32, n)}
		for i := range n {
			w.Pattern[i], w.F32[i] = a.At(i), uint32(a.At(n+i))
		}
		g.To[ty] = w
	}
	return g, nil
}

// npyArray is a C-ordered array of unsigned integers.
type npyArray struct {
	Column
	shape []int
}

// readNPY reads an .npy file of unsigned little-endian integers (descr '|u1', '<u2',
// '<u4' or '<u8') or of f32 ('<f4', read as their bits): the kinds the recording holds.
func readNPY(f *zip.File) (npyArray, error) {
	r, err := f.Open()
	if err != nil {
		return npyArray{}, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return npyArray{}, err
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return npyArray{}, fmt.Errorf("not an .npy file")
	}
	var hlen, off int
	switch b[6] {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:])), 10
	case 2, 3:
		if len(b) < 12 {
			return npyArray{}, fmt.Errorf("truncated header")
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[8:])), 12
	default:
		return npyArray{}, fmt.Errorf("unknown .npy version %d", b[6])
	}
	if off+hlen > len(b) {
		return npyArray{}, fmt.Errorf("truncated header")
	}
	a, err := parseHeader(string(b[off : off+hlen]))
	if err != nil {
		return npyArray{}, err
	}
	data := b[off+hlen:]
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	if len(data) != n*a.width {
		return npyArray{}, fmt.Errorf("%d data bytes for %d values of %d bytes", len(data), n, a.width)
	}
	a.data = data
	return a, nil
}

// parseHeader reads the descr, fortran_order and shape of an .npy header.
func parseHeader(h string) (npyArray, error) {
	var a npyArray
	widths := map[string]int{"'|u1'": 1, "'<u2'": 2, "'<u4'": 4, "'<u8'": 8, "'<f4'": 4}
	for d, w := range widths {
		if strings.Contains(h, "'descr': "+d) {
			a.width = w
		}
	}
	if a.width == 0 || !strings.Contains(h, "'fortran_order': False") {
		return a, fmt.Errorf("header %q: want C-ordered unsigned integers or f32", h)
	}
	_, rest, ok := strings.Cut(h, "'shape': (")
	dims, _, ok2 := strings.Cut(rest, ")")
	if !ok || !ok2 {
		return a, fmt.Errorf("header %q: no shape", h)
	}
	for _, d := range strings.Split(dims, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		n, err := strconv.Atoi(d)
		if err != nil {
			return a, fmt.Errorf("header %q: shape: %w", h, err)
		}
		a.shape = append(a.shape, n)
	}
	return a, nil
}

// IsSubnormal reports whether f32 bits are a nonzero subnormal.
func IsSubnormal(f uint32) bool { return f&0x7f800000 == 0 && f&0x7fffff != 0 }
