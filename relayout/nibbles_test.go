package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// TestNibbleTiles covers 4-bit arrays between one element a byte and tiles of words of
// eight rows' nibbles, which take the one-pass nibble executor at sizes of whole tiles,
// for every SIMD implementation, streaming or not, on several workers; and a size that
// is not whole tiles, which keeps the sub-byte executor.
func TestNibbleTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, c := range []struct {
		dst, src, kernel string
		sizes            [][2]int64
	}{
		{"s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "s4[%d,%d]{1,0}", "nibbles+interleave", [][2]int64{{8, 128}, {8, 4096}, {72, 2304}, {192, 384}}},
		{"s4[%d,%d]{1,0}", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "deinterleave+nibbles", [][2]int64{{8, 128}, {8, 4096}, {72, 2304}, {192, 384}}},
		{"u4[%d,%d]{1,0:T(64,128)(8,1)E(4)}", "u4[%d,%d]{1,0}", "nibbles+interleave", [][2]int64{{64, 128}, {128, 2304}}},
		{"u4[%d,%d]{1,0}", "u4[%d,%d]{1,0:T(64,128)(8,1)E(4)}", "deinterleave+nibbles", [][2]int64{{64, 128}, {128, 2304}}},
	} {
		for _, d := range c.sizes {
			dst := layout.MustParse(fmt.Sprintf(c.dst, d[0], d[1]))
			src := layout.MustParse(fmt.Sprintf(c.src, d[0], d[1]))
			for _, k := range implementations() {
				for _, v := range []pairCase{{}, {stream: true}, {opts: []Option{WithWorkers(3)}}} {
					v.dst, v.src = dst, src
					if got := checkPair(t, r, v, k.Name); got != c.kernel {
						t.Errorf("%s ← %s: kernel %s, want %s", dst, src, got, c.kernel)
					}
				}
			}
		}
	}
	c := pairCase{dst: layout.MustParse("s4[20,300]{1,0:T(8,128)(8,1)E(4)}"), src: layout.MustParse("s4[20,300]{1,0}")}
	if got := checkPair(t, r, c, simd.Default().Name); got != "transpose+pack" {
		t.Errorf("%s ← %s: kernel %s, want transpose+pack", c.dst, c.src, got)
	}
}
