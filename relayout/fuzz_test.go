package relayout

import (
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// FuzzRelayout draws a layout pair (shapes, tilings, dtypes, options) from the fuzzer's
// seeds and checks every SIMD implementation against the per-element reference, and
// that relaying out there and back restores every element.
func FuzzRelayout(f *testing.F) {
	testenv.FuzzRand(f, 8, func(t *testing.T, r *rand.Rand) {
		c := randomPair(r)
		// Some tilings pad a small array to hundreds of MB (T(2,2,1)(16,8,16) on
		// f32[144,272]: 160 MB), which the per-element reference takes seconds over;
		// the fuzzing engine then reports a hang.
		if p, err := NewPlan(c.dst, c.src, c.opts...); err == nil && p.DstBytes()+p.SrcBytes() > 16<<20 {
			t.Skip("footprint over 16 MiB")
		}
		for _, k := range implementations() {
			checkPair(t, r, c, k.Name)
			checkRoundTrip(t, r, c, k.Name)
		}
	})
}
