package testenv

import (
	"math/rand/v2"
	"testing"
)

// FuzzRand fuzzes check with random sources seeded by the fuzzer's two words, from n
// seeds of its own: the fuzz targets that draw their cases (shapes, layout pairs) from
// a source rather than from the fuzz data.
func FuzzRand(f *testing.F, n int, check func(t *testing.T, r *rand.Rand)) {
	for i := range uint64(n) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		check(t, rand.New(rand.NewPCG(s1, s2)))
	})
}
