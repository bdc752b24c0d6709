package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// tilePairs are the transposes into TPU tiles of 32-bit units that take
// Transpose32Tiles (f32, bf16 pairs and s8 quads, converted or not) and those out of
// them that take Transpose32FromTiles.
var tilePairs = []namedPair{
	{"f32[%d,%d]{1,0}", "f32[%d,%d]{0,1:T(8,128)}", "transpose"},
	{"bf16[%d,%d]{1,0}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", "transpose"},
	{"s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(32,128)(4,1)}", "transpose"},
	{"u8[%d,%d]{1,0}", "u8[%d,%d]{0,1:T(8,128)(4,1)}", "transpose"}, // tiles of 2 word rows
	// Converted first, then transposed from scratch.
	{"f32[%d,%d]{1,0}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", "transpose"},
	{"bf16[%d,%d]{1,0}", "f32[%d,%d]{0,1:T(8,128)}", "transpose"},
	{"s8[%d,%d]{1,0}", "f32[%d,%d]{0,1:T(8,128)}", "transpose"},
	// Read back with Transpose32FromTiles.
	{"f32[%d,%d]{0,1:T(8,128)}", "f32[%d,%d]{1,0}", "transpose"},
	{"bf16[%d,%d]{0,1:T(8,128)(2,1)}", "bf16[%d,%d]{1,0}", "transpose"},
	{"s8[%d,%d]{0,1:T(32,128)(4,1)}", "s8[%d,%d]{1,0}", "transpose"},
	{"s8[%d,%d]{0,1:T(8,128)(4,1)}", "s8[%d,%d]{1,0}", "transpose"},
}

// tileSizes reach Transpose32Tiles with several 16-unit blocks a row, odd rows and
// columns, and edge tiles with padding.
var tileSizes = [][2]int64{{64, 256}, {97, 1000}, {33, 300}, {130, 129}, {1000, 47}, {257, 130}, {40, 4096}, {200, 1000}, {129, 2049}, {513, 257}, {160, 520}, {95, 190}}

// TestTransposeTiles checks the tiled transposes against the reference at sizes whose
// blocks take Transpose32Tiles, for every SIMD implementation, streaming or not, with
// several workers and padding.
func TestTransposeTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	variants := []pairCase{
		{}, {stream: true},
		{stream: true, opts: []Option{WithWorkers(3)}},
		{opts: []Option{WithPadValue(2), WithWorkers(2)}},
		{stream: true, opts: []Option{WithPadLeave()}},
	}
	for i, c := range tilePairs {
		for j, d := range tileSizes {
			if quick() && (i+j)%4 != 0 { // a quarter of the sizes a pair, each size over the pairs
				continue
			}
			src := layout.MustParse(fmt.Sprintf(c.src, d[0], d[1]))
			dst := layout.MustParse(fmt.Sprintf(c.dst, d[0], d[1]))
			for k, kern := range implementations() {
				for l, v := range variants {
					if quick() && l != (j+k)%len(variants) { // one variant an implementation, in turn
						continue
					}
					v.dst, v.src = dst, src
					if got := checkPair(t, r, v, kern.Name); got != c.kernel {
						t.Errorf("%s ← %s: kernel %s, want %s", dst, src, got, c.kernel)
					}
				}
			}
		}
	}
}

// The large transposes into tiles of 32-bit units take Transpose32Tiles, in the cache
// and beyond it, with 16/cols of their repeats a call; those out of them
// Transpose32FromTiles, without staging their rows, with the AVX-512 and AVX2 sets;
// the generic set keeps the plans it had.
func TestTilesChosen(t *testing.T) {
	checkPlans(t, "generic transpose", tilesOf, []planCase[string]{
		{"f32[8192,8192]{1,0}", "f32[8192,8192]{0,1:T(8,128)}", "per block, staged"},
		{"f32[8192,8192]{0,1:T(8,128)}", "f32[8192,8192]{1,0}", "per block"},
	}, WithKernel("generic"))
	for _, name := range []string{"avx2", "avx512"} {
		if _, ok := simd.Lookup(name); !ok {
			continue // no such kernel set on this machine
		}
		checkPlans(t, name+" transpose", tilesOf, []planCase[string]{
			{"f32[8192,8192]{0,1:T(8,128)}", "f32[8192,8192]{1,0}", "into tiles, 2 repeats a call"},
			{"f32[1024,1024]{0,1:T(8,128)}", "f32[1024,1024]{1,0}", "into tiles, 2 repeats a call"},
			{"f32[8191,8190]{0,1:T(8,128)}", "f32[8191,8190]{1,0}", "into tiles, 2 repeats a call"},
			{"bf16[8192,8192]{0,1:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}", "into tiles, 4 repeats a call"},
			{"s8[8192,8192]{0,1:T(32,128)(4,1)}", "s8[8192,8192]{1,0}", "into tiles, 2 repeats a call"},
			{"bf16[8192,8192]{0,1:T(8,128)(2,1)}", "f32[8192,8192]{1,0}", "into tiles, 4 repeats a call"},
			{"f32[8192,8192]{0,1:T(8,128)}", "bf16[8192,8192]{1,0}", "into tiles, 2 repeats a call"},
			{"f32[8192,8192]{1,0}", "f32[8192,8192]{0,1:T(8,128)}", "from tiles, 2 repeats a call"},
			{"f32[1024,1024]{1,0}", "f32[1024,1024]{0,1:T(8,128)}", "from tiles, 2 repeats a call"},
			{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{0,1:T(8,128)(2,1)}", "from tiles, 4 repeats a call"},
			{"s8[8192,8192]{1,0}", "s8[8192,8192]{0,1:T(32,128)(4,1)}", "from tiles, 2 repeats a call"},
			{"s8[8192,8192]{0,1:T(8,128)(4,1)}", "s8[8192,8192]{1,0}", "into tiles, 8 repeats a call"},
			{"u8[2048,2048]{0,1:T(8,128)(4,1)}", "u8[2048,2048]{1,0}", "into tiles, 8 repeats a call"},
			{"s8[8192,8192]{1,0}", "s8[8192,8192]{0,1:T(8,128)(4,1)}", "from tiles, 8 repeats a call"},
		}, WithWorkers(1), WithKernel(name))
	}
}

// tilesOf says how the plan's transpose moves its blocks: into tiles or from tiles by
// the tile kernels, so many repeats a call, or block by block; and whether it stages them.
func tilesOf(p *Plan) string {
	k := transposeOf(p)
	how := "per block"
	switch {
	case kindOf(p) != "transpose":
		return kindOf(p) + " kernel"
	case k.tiles != nil && k.fromTiles != nil:
		how = "into and from tiles"
	case k.tiles != nil:
		return fmt.Sprintf("into tiles, %d repeats a call", k.tileReps) // staged or not
	case k.fromTiles != nil:
		how = fmt.Sprintf("from tiles, %d repeats a call", k.tileReps)
	}
	if k.conv != nil {
		how += ", staged"
	}
	return how
}
