package algebra

import (
	"testing"
)

// layoutFromBytes builds a small valid layout from fuzz bytes: one byte for the mode
// count (1–4), then per mode a shape (1–8) and a stride (0–63).
func layoutFromBytes(b []byte) (Layout, []byte) {
	if len(b) == 0 {
		return Leaf(1, 0), b
	}
	k := 1 + int(b[0])%4
	b = b[1:]
	sh := make([]int64, k)
	st := make([]int64, k)
	for i := range sh {
		if len(b) < 2 {
			sh[i], st[i] = 1, 0
			continue
		}
		sh[i], st[i] = 1+int64(b[0])%8, int64(b[1])%64
		b = b[2:]
	}
	if k == 1 {
		return Leaf(sh[0], st[0]), b
	}
	return Layout{Ints(sh...), Ints(st...)}, b
}

// FuzzCompose checks that Compose either refuses with a typed error or returns a layout
// that agrees with composing the two maps element by element.
func FuzzCompose(f *testing.F) {
	f.Add([]byte{1, 7, 16, 1, 1, 8, 1, 2, 0})
	f.Add([]byte{2, 7, 1, 1, 8, 3, 32, 0, 11, 0, 1})
	f.Add([]byte{3, 5, 2, 1, 3, 7, 4, 2, 1, 2, 1, 0, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, rest := layoutFromBytes(data)
		b, _ := layoutFromBytes(rest)
		checkCompose(t, a, b)
	})
}
