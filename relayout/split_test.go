package relayout

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// units is the outer iterations a plan's copies split over workers: its loop nest's, or
// the fewest of its passes' loop nests (the passes of sub-byte plans that unpack and
// pack split over packed bytes on their own), or its byte copy's.
func units(t *testing.T, p *Plan) int64 {
	t.Helper()
	switch e := p.exec.(type) {
	case *loopNest:
		return p.chunks
	case *subByte:
		return units(t, e.inner)
	case *packedCopy:
		return units(t, e.inner)
	case *twoPass:
		return min(units(t, e.first), units(t, e.second))
	case *nibbleTiles:
		return e.rows / 8
	case *nibbleWords:
		return e.rows / nibbleBlock
	}
	t.Fatalf("%s: no loop nest to count units in", p)
	return 0
}

// splitCases are the plans that had a single outer iteration, or few, before compile
// cut runs and repeats (see splitRun and splitRepeats), and the other kinds beside
// them, at sizes that divide by nothing the cuts choose (primes, odd dims), with
// padding, and with sub-byte elements.
var splitCases = []struct{ src, dst string }{
	// Identical layouts.
	{"f32[509,263]{1,0}", "f32[509,263]{1,0}"},
	{"f32[509,263]{1,0:T(8,128)}", "f32[509,263]{1,0:T(8,128)}"},
	{"bf16[509,263]{1,0:T(8,128)(2,1)}", "bf16[509,263]{1,0:T(8,128)(2,1)}"},
	{"f32[3,211,263]{1,2,0}", "f32[3,211,263]{1,2,0}"},
	{"c128[131,67]{1,0}", "c128[131,67]{1,0}"},
	{"u8[1021,263]{0,1}", "u8[1021,263]{0,1}"},
	// Conversions between dtypes in one layout.
	{"f32[509,263]{1,0}", "bf16[509,263]{1,0}"},
	{"bf16[509,263]{1,0}", "f32[509,263]{1,0}"},
	{"f32[509,263]{1,0}", "f16[509,263]{1,0}"},
	{"f32[509,263]{1,0}", "f8e4m3fn[509,263]{1,0}"},
	{"f32[509,263]{1,0}", "s8[509,263]{1,0}"},
	{"s8[509,263]{1,0}", "f64[509,263]{1,0}"},
	{"f32[509,263]{1,0:T(8,128)}", "bf16[509,263]{1,0:T(8,128)}"},
	// 1-D arrays: a prime length, cut unevenly; tiled, with padding.
	{"f32[130003]{0}", "f32[130003]{0}"},
	{"s8[400009]{0}", "s8[400009]{0}"},
	{"f32[130003]{0:T(1024)}", "f32[130003]{0:T(1024)}"},
	{"f32[130003]{0}", "bf16[130003]{0}"},
	{"bf16[130003]{0}", "f32[130003]{0:T(256)}"},
	// Sub-byte elements, packed: identical, to bytes, from bytes, 1-D with a half byte.
	{"s4[509,263]{1,0:E(4)}", "s4[509,263]{1,0:E(4)}"},
	{"s4[509,263]{1,0:T(8,128)(8,1)E(4)}", "s4[509,263]{1,0:T(8,128)(8,1)E(4)}"},
	{"s4[509,263]{1,0:E(4)}", "s8[509,263]{1,0}"},
	{"s8[509,263]{1,0}", "s4[509,263]{1,0:E(4)}"},
	{"u2[400009]{0:E(2)}", "u2[400009]{0:E(2)}"},
	{"s4[400009]{0:E(4)}", "s8[400009]{0}"},
	// Transposes and permutations.
	{"f32[509,263]{1,0}", "f32[509,263]{0,1}"},
	{"bf16[509,263]{1,0}", "bf16[509,263]{0,1}"},
	{"s8[1021,263]{1,0}", "s8[1021,263]{0,1}"},
	{"f32[23,29,31,37]{3,2,1,0}", "f32[23,29,31,37]{0,1,2,3}"},
	{"f32[24,25,26,27]{3,2,1,0}", "f32[24,25,26,27]{1,3,0,2}"},
}

// Every kind of plan, on 1, 2, 3 and 7 workers, writes the oracle's bytes, padding
// included; on more than one worker (as workersFor grants for its size) it has more
// than one unit of parallel work. Transpose blocks are a quarter of workerBytes, as in
// the library (an L2 cache and four), so that the tests' small arrays have as many
// blocks as a large array that is granted workers.
func TestSplitMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 1))
	for _, c := range splitCases {
		dst, src := layout.MustParse(c.dst), layout.MustParse(c.src)
		for _, w := range []int{1, 2, 3, 7} {
			opts := []Option{WithWorkers(w), WithBlockBytes(int(workerBytes / 4))}
			variants := []pairCase{
				{opts: opts},
				{opts: append(opts[:2:2], WithPadLeave()), stream: true},
			}
			if buffer.CanConvert(dst.DType, layout.F64) {
				variants = append(variants, pairCase{opts: append(opts[:2:2], WithPadValue(3))})
			}
			for _, v := range variants {
				v.dst, v.src = dst, src
				for _, k := range splitImplementations() {
					checkPair(t, r, v, k.Name)
				}
			}
			p, err := NewPlan(dst, src, opts...)
			if err != nil {
				t.Fatal(err)
			}
			granted := p.opts.split.workersFor(int64(w), p.SrcBytes()+p.DstBytes(), math.MaxInt64)
			if u := units(t, p); granted > 1 && u < 2 {
				t.Errorf("%s on %d workers: %d units of parallel work", p, w, u)
			}
		}
	}
}

// A copy between identical layouts and a conversion between dtypes in one layout, of
// a large array, plan more than one outer iteration for two workers or more (they had
// one); on one worker, or for a small array, the run stays whole.
func TestSplitUnits(t *testing.T) {
	defer func(w, s int64) { workerBytes, splitBytes = w, s }(workerBytes, splitBytes)
	workerBytes, splitBytes = 4*int64(defaultBlockBytes()), 256<<10 // the library's own thresholds
	for _, c := range []struct{ src, dst string }{
		{"f32[4096,4096]{1,0}", "f32[4096,4096]{1,0}"},
		{"f32[4096,4096]{1,0}", "bf16[4096,4096]{1,0}"},
		{"f32[16777216]{0}", "f32[16777216]{0}"},
		{"f32[4096,4096]{1,0:T(8,128)}", "f32[4096,4096]{1,0:T(8,128)}"},
	} {
		dst, src := layout.MustParse(c.dst), layout.MustParse(c.src)
		for _, w := range []int{1, 2, 3, 7, 16} {
			p, err := NewPlan(dst, src, WithWorkers(w))
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			if _, err := fmt.Sscanf(p.exec.describe(), "copy kernel ("+p.k().Name+"), %d outer iterations", &n); err != nil {
				t.Fatalf("%s: description: %v", p, err)
			}
			switch {
			case n != p.chunks:
				t.Errorf("%s: describes %d outer iterations, runs %d", p, n, p.chunks)
			case w == 1 && n != 1:
				t.Errorf("%s on one worker: %d outer iterations, want the run whole", p, n)
			case w > 1 && n < int64(w):
				t.Errorf("%s on %d workers: %d outer iterations, want %d or more", p, w, n, w)
			}
		}
		small := func(s layout.Shape) layout.Shape { s.Dims = []int64{64, 64}[:len(s.Dims)]; return s }
		p, err := NewPlan(small(dst), small(src), WithWorkers(8))
		if err != nil {
			t.Fatal(err)
		}
		if p.chunks != 1 {
			t.Errorf("%s on 8 workers: %d outer iterations, want the small run whole", p, p.chunks)
		}
	}
}

// splitImplementations are the kernel sets TestSplitMatchesReference runs: in -short
// runs the preferred one (the cuts are the same for every set; TestRandomPairs takes
// them all through cut plans too).
func splitImplementations() []*simd.Kernels {
	all := implementations()
	if testing.Short() {
		return all[len(all)-1:]
	}
	return all
}

// largeCases are the suite's kinds of plan at the sizes relayout-bench --size large
// runs, and the plans that once had one outer iteration there: identical layouts, a
// conversion between dtypes in one layout, 1-D arrays, narrow and wide types.
var largeCases = []struct{ src, dst string }{
	{"f32[8192,8192]{1,0}", "f32[8192,8192]{1,0}"},
	{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0:T(8,128)}"},
	{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}"},
	{"f32[4096,4096]{1,0}", "bf16[4096,4096]{1,0}"},
	{"bf16[8192,8192]{1,0}", "f32[8192,8192]{1,0}"},
	{"f32[8192,8192]{1,0}", "f8e4m3fn[8192,8192]{1,0}"},
	{"f32[67108864]{0}", "f32[67108864]{0}"},
	{"s8[67108864]{0}", "s8[67108864]{0}"},
	{"f32[67108864]{0}", "bf16[67108864]{0}"},
	{"c128[4096,4096]{1,0}", "c128[4096,4096]{1,0}"},
	{"u8[8192,8192]{1,0}", "u8[8192,8192]{1,0}"},
	{"s4[8192,8192]{1,0:E(4)}", "s4[8192,8192]{1,0:E(4)}"},
	{"s4[8192,8192]{1,0:E(4)}", "s8[8192,8192]{1,0}"},
	{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{0,1}"},
	{"s8[8192,8192]{1,0}", "s8[8192,8192]{0,1}"},
	{"f64[4096,4096]{1,0}", "f64[4096,4096]{0,1}"},
	{"f32[64,64,64,64]{3,2,1,0}", "f32[64,64,64,64]{1,3,0,2}"},
	{"f32[8,4096,8,512]{3,2,1,0}", "f32[8,4096,8,512]{3,1,2,0}"},
}

// Every plan of a large array, the suite's included, has at least w units of parallel
// work for w workers, with the library's own thresholds: identical layouts and
// conversions between dtypes in one layout (which had one) as much as transposes.
func TestSplitLarge(t *testing.T) {
	defer func(w, s int64) { workerBytes, splitBytes = w, s }(workerBytes, splitBytes)
	workerBytes, splitBytes = 4*int64(cacheBlockBytes()), 256<<10 // the library's own thresholds
	var pairs [][2]layout.Shape
	for _, c := range largeCases {
		pairs = append(pairs, [2]layout.Shape{layout.MustParse(c.dst), layout.MustParse(c.src)})
	}
	for _, c := range benchCases {
		dst, src := c.shapes(8192, 8192)
		if c.four {
			dst, src = fourD(c, 64)
		}
		pairs = append(pairs, [2]layout.Shape{dst, src})
	}
	for _, pr := range pairs {
		for _, w := range []int{2, 3, 4, 8, 16} {
			p, err := NewPlan(pr[0], pr[1], WithWorkers(w))
			if err != nil {
				t.Fatal(err)
			}
			if u := units(t, p); u < int64(w) {
				t.Errorf("%s on %d workers: %d units of parallel work, want %d or more", p, w, u, w)
			}
		}
	}
}
