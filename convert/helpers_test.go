package convert

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/layout"
)

// randomBuffer is an array of shape text with random elements (as the command's tests make).
func randomBuffer(t *testing.T, text string, seed uint64) *buffer.Buffer {
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

// writeNPY saves b as dir/name and returns the path.
func writeNPY(t *testing.T, dir, name string, b *buffer.Buffer) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := npy.Write(p, b); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirNames lists a directory, hidden files included.
func dirNames(t *testing.T, dir string) []string {
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

// tree makes the directory dir holding files.
func tree(t *testing.T, dir string, files map[string]string) {
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

// treeOf reads the files of dir.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		got[e.Name()] = string(b)
	}
	return got
}
