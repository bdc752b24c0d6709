package relayout

import (
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// Untilings walked in source order ask for the next tile ahead, tilings of narrow arrays
// for the next tile row's source rows (untilings whose row pairs are separate blocks, for
// the next 32 KiB of tiles); copies whose blocks read long source streams, and
// copies inside the cache, do not.
func TestSourcePiece(t *testing.T) {
	for _, c := range []struct {
		dst, src string
		want     int64
	}{
		{"f32[8192,8192]{1,0}", "f32[8192,8192]{1,0:T(8,128)}", 4096},
		{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", 2048},
		{"f32[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", 2048},
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}", 0},                    // source rows: 32 KiB pieces
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}", 0},             // interleave
		{"f32[8192,8192]{0,1}", "f32[8192,8192]{1,0}", 0},                             // transpose
		{"f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,128)}", 0},                          // in the cache
		{"bf16[4096,3,4096]{2,1,0}", "bf16[4096,3,4096]{2,1,0:T(4,128)(2,1)}", 32768}, // two row-pair blocks a tile row
	} {
		p, err := NewPlan(layout.MustParse(c.dst), layout.MustParse(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if p.ahead.piece != c.want {
			t.Errorf("%s ← %s: ahead %d, want %d", c.dst, c.src, p.ahead.piece, c.want)
		}
	}
}

// Untiling edge tiles (a row of 8191 bf16 pairs ends in a tile of 127 columns) copy
// their data prefix with the deinterleave kernel, not element by element.
func TestDeinterleaveClips(t *testing.T) {
	for _, c := range [][2]string{
		{"bf16[64,8191]{1,0}", "bf16[64,8191]{1,0:T(8,128)(2,1)}"},
		{"f32[64,8191]{1,0}", "bf16[64,8191]{1,0:T(8,128)(2,1)}"},
		{"s8[64,8191]{1,0}", "s8[64,8191]{1,0:T(32,128)(4,1)}"},
		{"f32[13,300]{1,0:T(8,128)}", "bf16[13,300]{1,0:T(8,128)(2,1)}"},
	} {
		p, err := NewPlan(layout.MustParse(c[0]), layout.MustParse(c[1]))
		if err != nil {
			t.Fatal(err)
		}
		if k := p.kern; k.kind != kDeinterleave || !k.clip || k.clipDim != 1 {
			t.Errorf("%s ← %s: %v kernel, clip %v on dim %d; want deinterleave clipped on dim 1", c[0], c[1], k.kind, k.clip, k.clipDim)
		}
	}
}

// Narrow arrays batch the rows of a tile, not their one or two tile columns.
func TestBatchOrder(t *testing.T) {
	for _, c := range []struct {
		dst, src string
		rep      int64
	}{
		{"f32[200000,200]{1,0:T(8,128)}", "f32[200000,200]{1,0}", 8},
		{"bf16[200000,200]{1,0:T(8,128)(2,1)}", "bf16[200000,200]{1,0}", 4},
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}", 64}, // 64 tile columns: too much for L1
	} {
		p, err := NewPlan(layout.MustParse(c.dst), layout.MustParse(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if p.kern.rep != c.rep {
			t.Errorf("%s ← %s: batches of %d, want %d", c.dst, c.src, p.kern.rep, c.rep)
		}
	}
}

// A retiling's run spans several dims (row pairs, columns, pair halves); its edge
// tiles clip at the column loop rather than going element by element.
func TestSplitClip(t *testing.T) {
	p, err := NewPlan(layout.MustParse("bf16[200,200]{1,0:T(16,128)(2,1)}"), layout.MustParse("bf16[200,200]{1,0:T(8,128)(2,1)}"))
	if err != nil {
		t.Fatal(err)
	}
	k := p.kern
	if k.kind != kCopy || !k.clip || k.clipDim != 1 || len(k.clipOuter) != 1 || k.clipSize != 128 || k.clipUnit != 2 {
		t.Errorf("%v kernel, clip %v on dim %d, %d outer loops, %d values of %d elements; want copy clipped on dim 1 inside 1 loop, 128 values of 2",
			k.kind, k.clip, k.clipDim, len(k.clipOuter), k.clipSize, k.clipUnit)
	}
}

// A pair or quad cut by the end of its rows' dim (three rows in tiles of four) unpacks
// its rows past the data into a worker's buffer; without one it went element by element.
func TestPartialUnpackBuffer(t *testing.T) {
	for _, c := range [][2]string{
		{"bf16[64,3,256]{2,1,0}", "bf16[64,3,256]{2,1,0:T(4,128)(2,1)}"},
		{"s8[64,5,256]{2,1,0}", "s8[64,5,256]{2,1,0:T(32,128)(4,1)}"},
	} {
		p, err := NewPlan(layout.MustParse(c[0]), layout.MustParse(c[1]))
		if err != nil {
			t.Fatal(err)
		}
		if p.kern.kind != kDeinterleave || p.stage == nil {
			t.Errorf("%s ← %s: %v kernel, buffer %v; want deinterleave with a buffer", c[0], c[1], p.kern.kind, p.stage != nil)
		}
	}
}

// Reading a transposed tiling back ({0,1:T(8,128)} → {1,0}) transposes 8-wide blocks:
// where the simd set has Transpose32FromTiles's kernels, it takes two at a time, whose
// destination rows are whole lines, so they are not built in scratch; elsewhere, and
// for converting ones, they are built there and stored in long runs. Blocks that go
// one at a time ask for the next block's tile, a page or more away.
func TestStagedTranspose(t *testing.T) {
	p, err := NewPlan(layout.MustParse("f32[8192,8192]{1,0}"), layout.MustParse("f32[8192,8192]{0,1:T(8,128)}"))
	if err != nil {
		t.Fatal(err)
	}
	if k, tiles := p.kern, p.k().TileKernels(8); k.kind != kTranspose || (k.conv == nil) != tiles || (k.fromTiles != nil) != tiles || p.blockAhead != 4096 {
		t.Errorf("%v kernel, staged %v, from tiles %v (kernels %v), block ahead %d; want a transpose from tiles if there are kernels, else staged, 4096 ahead", k.kind, k.conv != nil, k.fromTiles != nil, tiles, p.blockAhead)
	}
	p, err = NewPlan(layout.MustParse("f32[8192,8192]{1,0}"), layout.MustParse("bf16[8192,8192]{0,1:T(8,128)(2,1)}"))
	if err != nil {
		t.Fatal(err)
	}
	if k := p.kern; k.kind != kTranspose || k.conv == nil || k.convFirst || p.blockAhead != 2048 {
		t.Errorf("%v kernel, staged %v (first %v), block ahead %d; want a transpose staged after, 2048 ahead", k.kind, k.conv != nil, k.convFirst, p.blockAhead)
	}
}
