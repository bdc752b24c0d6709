package tpu

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// Evidence says how far layouts XLA wrote in real TPU HLO back a [DefaultLayout] answer.
// The corpus is testdata/tpu-defaults (XLA's own TPU test modules, pasted from dumps, and
// public HLO); docs/tpu-model.md cites it rule by rule.
type Evidence struct {
	// Guess is true where the dumps conflict, or no dump speaks for this generation,
	// dtype and shape class.
	Guess bool `json:"guess"`
	// Why says which, in one clause; empty when Guess is false.
	Why string `json:"why,omitempty"`
}

// evidencedGeneration reports whether dumps speak for g's defaults. v4 to v6e share one
// rule (Mosaic version 4 to 6, 8 sublanes); one dump names v6e, and most layouts of the
// dumps that name no generation follow that rule (smallest tile p rows) while the rest
// follow v2/v3's (2p rows). A v2/v3 or TPU7x-and-later default is a reading of Mosaic's
// code and tpu_info.py, not of a dump.
func evidencedGeneration(g Generation) bool {
	return g == V4 || g == V5e || g == V5p || g == V6e
}

// scalarFiles counts, per dtype, the files in testdata/tpu-defaults (XLA's test modules
// and a v6e compiler dump, one file per module) that write a scalar with the v4+
// default tile ({:T(128·p)}) and with any other tile. The tpu test recounts them from
// the table, so they cannot drift from it.
var scalarFiles = map[layout.DType][2]int{
	layout.S32:  {21, 6},
	layout.U32:  {22, 3},
	layout.F32:  {15, 6},
	layout.BF16: {8, 2},
	layout.U16:  {2, 0},
	layout.Pred: {6, 7},
	layout.S8:   {1, 1},
}

// eightBitFiles counts the files in testdata/tpu-defaults that write 8-bit arrays (s8,
// u8, pred) of rank ≥ 2 with T(8,128)(4,1) and with T(32,128)(4,1); recounted by the
// tpu test like scalarFiles.
var eightBitFiles = [2]int{15, 3}

// DefaultEvidence says whether the dumps back DefaultLayout(g, dt, dims) (with no
// options) or whether it is a guess, and why.
func DefaultEvidence(g Generation, dt layout.DType, dims []int64) Evidence {
	if g == NoGeneration {
		g = DefaultGeneration
	}
	guess := func(format string, a ...any) Evidence {
		return Evidence{Guess: true, Why: fmt.Sprintf(format, a...)}
	}
	b, err := elementBits(dt)
	if err != nil {
		return guess("%s has no TPU layout", dt)
	}
	switch {
	case g == V2 || g == V3:
		return guess("no %s dump found: the v2/v3 rule (tiles of at least 2·32/bits rows) is read from Mosaic's code", g)
	case !evidencedGeneration(g):
		return guess("no %s dump found: its tiling follows tpu_info.py's heuristic (large second-minor tiles for every type)", g)
	}
	n := len(dims)
	switch {
	case n == 0:
		f, ok := scalarFiles[dt]
		if !ok {
			return guess("no dump found has a scalar of type %s", dt)
		}
		if f[0] < 2 || f[0] < 2*f[1] {
			return guess("XLA's dumps tile %s scalars inconsistently (the v4+ tile in %d files, another in %d)", dt, f[0], f[1])
		}
	case b < 8:
		return guess("%d-bit arrays appear in one module only, both T(8,128)(%d,1) and T(64,128)(%d,1)", b, 32/b, 32/b)
	case b == 8 && n == 1:
		return guess("the only 1-D 8-bit arrays in XLA's dumps, in two modules of no named generation, are unpacked (s8[2]{0:T(128)}, pred[1]{0:T(128)}), and no dump writes one packed")
	case b == 8 && dims[n-2] >= 32 && dims[n-2]%32 == 0:
		return guess("XLA's dumps write 8-bit arrays T(8,128)(4,1) in %d files and T(32,128)(4,1) in %d (a v6e dump has both), and tpu_info.py says T(32,128)(4,1)", eightBitFiles[0], eightBitFiles[1])
	}
	return Evidence{}
}
