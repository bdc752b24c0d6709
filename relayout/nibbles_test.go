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
		// The transposed tiling: words of eight elements of a row, tiles down the columns.
		{"s4[%d,%d]{0,1:T(8,128)(8,1)E(4)}", "s4[%d,%d]{1,0}", "pack+transpose", [][2]int64{{128, 8}, {128, 4096}, {384, 72}, {256, 2000}}},
		{"u4[%d,%d]{1,0}", "u4[%d,%d]{0,1:T(8,128)(8,1)E(4)}", "transpose+unpack", [][2]int64{{128, 8}, {128, 4096}, {384, 72}, {256, 2000}}},
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
				// A destination off the line boundaries (a NumPy array's is 16 bytes past one).
				checkPairAt(t, r, pairCase{dst: dst, src: src, stream: true}, k.Name, 16)
			}
		}
	}
	for _, c := range [][3]string{
		{"s4[20,300]{1,0:T(8,128)(8,1)E(4)}", "s4[20,300]{1,0}", "transpose+pack"},
		{"s4[100,300]{0,1:T(8,128)(8,1)E(4)}", "s4[100,300]{1,0}", "copy+pack"},
	} {
		pc := pairCase{dst: layout.MustParse(c[0]), src: layout.MustParse(c[1])}
		if got := checkPair(t, r, pc, simd.Default().Name); got != c[2] {
			t.Errorf("%s ← %s: kernel %s, want %s", pc.dst, pc.src, got, c[2])
		}
	}
}

// The narrow types' plans copy without allocating, on one worker and on several: the
// nibble executors, the fused f8 packing and the 8-bit tiles of two word rows.
func TestNarrowAllocs(t *testing.T) {
	defer func(b int64) { workerBytes = b }(workerBytes)
	workerBytes = 1 << 10 // small arrays split over the workers too
	for _, c := range [][2]string{
		{"s4[256,1024]{1,0:T(8,128)(8,1)E(4)}", "s4[256,1024]{1,0}"},
		{"s4[256,1024]{1,0}", "s4[256,1024]{1,0:T(8,128)(8,1)E(4)}"},
		{"s4[256,1024]{0,1:T(8,128)(8,1)E(4)}", "s4[256,1024]{1,0}"},
		{"s4[256,1024]{1,0}", "s4[256,1024]{0,1:T(8,128)(8,1)E(4)}"},
		{"f8e4m3fn[256,1024]{1,0:T(8,128)(4,1)}", "f32[256,1024]{1,0}"},
		{"f8e4m3fn[256,1024]{1,0:T(8,128)(4,1)}", "bf16[256,1024]{1,0}"},
		{"f16[256,1024]{1,0}", "f8e5m2[256,1024]{1,0}"},
		{"s8[256,1024]{0,1:T(8,128)(4,1)}", "s8[256,1024]{1,0}"},
	} {
		for _, workers := range []int{1, 2} {
			dst, src := layout.MustParse(c[0]), layout.MustParse(c[1])
			_, copyAll := planCopy(t, dst, src, workers)
			if n := testing.AllocsPerRun(20, copyAll); n != 0 {
				t.Errorf("%s ← %s, %d workers: Copy allocates %v times", c[0], c[1], workers, n)
			}
		}
	}
}
