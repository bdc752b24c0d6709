package testenv

import (
	"math/rand/v2"
	"testing"
)

// FuzzRandSources: each seed gives a source of its own, the same one every time.
func FuzzRandSources(f *testing.F) {
	seen := map[uint64]bool{}
	FuzzRand(f, 4, func(t *testing.T, r *rand.Rand) {
		v := r.Uint64()
		if seen[v] {
			t.Errorf("two seeds drew %#x first", v)
		}
		seen[v] = true
	})
}
