package relayout

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
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
	for _, name := range []string{"generic"} {
		p, err := NewPlan(layout.MustParse("f32[8192,8192]{1,0}"), layout.MustParse("f32[8192,8192]{0,1:T(8,128)}"), WithKernel(name))
		if err != nil {
			continue
		}
		if k := transposeOf(p); k.fromTiles != nil || k.conv == nil {
			t.Errorf("%s: from tiles %v, staged %v; want the staged plan", name, k.fromTiles != nil, k.conv != nil)
		}
		p, err = NewPlan(layout.MustParse("f32[8192,8192]{0,1:T(8,128)}"), layout.MustParse("f32[8192,8192]{1,0}"), WithKernel(name))
		if err != nil {
			t.Fatal(err)
		}
		if transposeOf(p).tiles != nil {
			t.Errorf("%s: tiles; want the per-block transposes", name)
		}
	}
	for _, c := range []struct {
		src, dst string
		reps     int64
	}{
		{"f32[8192,8192]{1,0}", "f32[8192,8192]{0,1:T(8,128)}", 2},
		{"f32[1024,1024]{1,0}", "f32[1024,1024]{0,1:T(8,128)}", 2},
		{"f32[8191,8190]{1,0}", "f32[8191,8190]{0,1:T(8,128)}", 2},
		{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{0,1:T(8,128)(2,1)}", 4},
		{"s8[8192,8192]{1,0}", "s8[8192,8192]{0,1:T(32,128)(4,1)}", 2},
		{"f32[8192,8192]{1,0}", "bf16[8192,8192]{0,1:T(8,128)(2,1)}", 4},
		{"bf16[8192,8192]{1,0}", "f32[8192,8192]{0,1:T(8,128)}", 2},
		{"f32[8192,8192]{0,1:T(8,128)}", "f32[8192,8192]{1,0}", 2},
		{"f32[1024,1024]{0,1:T(8,128)}", "f32[1024,1024]{1,0}", 2},
		{"bf16[8192,8192]{0,1:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}", 4},
		{"s8[8192,8192]{0,1:T(32,128)(4,1)}", "s8[8192,8192]{1,0}", 2},
		{"s8[8192,8192]{1,0}", "s8[8192,8192]{0,1:T(8,128)(4,1)}", 8},
		{"u8[2048,2048]{1,0}", "u8[2048,2048]{0,1:T(8,128)(4,1)}", 8},
		{"s8[8192,8192]{0,1:T(8,128)(4,1)}", "s8[8192,8192]{1,0}", 8},
	} {
		for _, name := range []string{"avx2", "avx512"} {
			p, err := NewPlan(layout.MustParse(c.dst), layout.MustParse(c.src), WithWorkers(1), WithKernel(name))
			if err != nil {
				continue // no such kernel set on this machine
			}
			from := strings.Contains(c.src, "T(")
			if k := transposeOf(p); kindOf(p) != "transpose" || (k.tiles != nil) == from || (k.fromTiles != nil) != from || k.tileReps != c.reps || k.conv != nil && from {
				t.Errorf("%s: %s ← %s: %v kernel, tiles %v, from tiles %v, %d repeats a call, staged %v; want transpose, %d repeats", name, c.dst, c.src, kindOf(p), k.tiles != nil, k.fromTiles != nil, k.tileReps, k.conv != nil, c.reps)
			}
		}
	}
}
