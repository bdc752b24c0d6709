// Package testfiles makes and reads the arrays, files and directories that the tests of
// several packages (convert, tpu, the tpulayout command) use, so that all make them alike.
package testfiles

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/layout"
)

// RandomBuffer returns a row-major buffer of shape text with random values: normals
// for floats (some exact bf16 rounding ties among f32), random bits for integers.
func RandomBuffer(t testing.TB, text string, seed uint64) *buffer.Buffer {
	t.Helper()
	b := buffer.MustNew(layout.MustParse(text))
	rng := rand.New(rand.NewPCG(seed, 7))
	dims := b.Dims()
	if b.Len() == 0 {
		return b
	}
	idx := make([]int64, len(dims))
	for {
		switch dt := b.DType(); {
		case dt == layout.F32:
			if rng.IntN(8) == 0 { // an exact tie for bf16 rounding (finite: bit 30 clear)
				b.SetBits(idx, uint64(rng.Uint32()&0xbfff0000|0x8000))
				break
			}
			b.SetF32(idx, float32(rng.NormFloat64()))
		case dt.IsFloat():
			b.Set(idx, rng.NormFloat64())
		default:
			b.SetBits(idx, rng.Uint64())
		}
		if !layout.NextIndex(idx, dims) {
			return b
		}
	}
}

// WriteNPY saves b as dir/name and returns the path.
func WriteNPY(t testing.TB, dir, name string, b *buffer.Buffer) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := npy.Write(p, b); err != nil {
		t.Fatal(err)
	}
	return p
}

// DirNames lists a directory, hidden files included.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Tree makes the directory dir holding files (name → contents).
func Tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TreeOf reads the files of dir (name → contents).
func TreeOf(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, n := range DirNames(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		got[n] = string(b)
	}
	return got
}

// MappedRaw writes data to a file in dir for each shape text and reads it back as
// that shape with buffer.ReadRaw, closed when the test ends. It skips the test where
// the files are read instead of mapped.
func MappedRaw(t testing.TB, dir string, data []byte, shapes ...string) []*buffer.Buffer {
	t.Helper()
	var bufs []*buffer.Buffer
	for i, s := range shapes {
		p := filepath.Join(dir, strconv.Itoa(i)+".raw")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := buffer.ReadRaw(p, layout.MustParse(s))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		if !b.Mapped() {
			t.Skip("not mapped here")
		}
		bufs = append(bufs, b)
	}
	return bufs
}
