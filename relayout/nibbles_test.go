package relayout

import (
	"fmt"
	"math/rand/v2"
	"strings"
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

// TestNibbleTilesFlat covers int4 arrays of more dims that are 2-D arrays in memory
// (dims of one element anywhere in the layout, the others in order, the last
// minor-most, the tiles' rows a multiple of the tile: XLA's
// s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}), which take the nibble executor both
// ways, and near misses that must not, each against the per-element oracle for every
// SIMD implementation.
func TestNibbleTilesFlat(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	type pair struct {
		tiled, bytes string
		nibbles      bool
	}
	pairs := []pair{
		{"s4[8,64,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}", "s4[8,64,1,256]{3,2,1,0}", true},
		// Bands read back in pairs, an odd one left (5 bands), more than pairBands.
		{"s4[5,64,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}", "s4[5,64,1,256]{3,2,1,0}", true},
		{"s4[3,64,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}", "s4[3,64,1,256]{3,2,1,0}", true},
		{"u4[2,8256,1,128]{3,1,0,2:T(64,128)(8,1)E(4)}", "u4[2,8256,1,128]{3,2,1,0}", true},
		{"u4[2,1,16,128]{3,2,0,1:T(8,128)(8,1)E(4)}", "u4[2,1,16,128]{3,1,2,0}", true},
		{"s4[3,1,8,1,128]{4,2,3,0,1:T(8,128)(8,1)E(4)}", "s4[3,1,8,1,128]", true},
		// Padded tile rows, a unit dim under the tiles, dims out of order, the last not minor-most.
		{"s4[8,60,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}", "s4[8,60,1,256]{3,2,1,0}", false},
		{"s4[8,64,1,256]{3,2,1,0:T(8,128)(8,1)E(4)}", "s4[8,64,1,256]{3,2,1,0}", false},
		{"s4[8,64,256]{2,0,1:T(8,128)(8,1)E(4)}", "s4[8,64,256]{2,1,0}", false},
		{"s4[8,64,256]{2,1,0:T(8,128)(8,1)E(4)}", "s4[8,64,256]{2,0,1}", false},
		{"s4[8,128,1]{1,2,0:T(8,128)(8,1)E(4)}", "s4[8,128,1]{2,1,0}", false},
	}
	for range 12 {
		pairs = append(pairs, randomFlatNibbles(r))
	}
	for _, c := range pairs {
		tiled, bytes := layout.MustParse(c.tiled), layout.MustParse(c.bytes)
		for _, k := range implementations() {
			for _, v := range []pairCase{{dst: tiled, src: bytes}, {dst: bytes, src: tiled}, {dst: bytes, src: tiled, stream: true}, {dst: bytes, src: tiled, stream: true, opts: []Option{WithWorkers(3)}}} {
				got := checkPair(t, r, v, k.Name)
				if nib := got == "nibbles+interleave" || got == "deinterleave+nibbles"; nib != c.nibbles {
					t.Errorf("%s ← %s: kernel %s, nibble executor %v", v.dst, v.src, got, c.nibbles)
				}
			}
		}
	}
}

// randomFlatNibbles returns a tiled int4 shape and a byte-per-element one that are both
// 2-D in memory: two to four dims of data in order, the last 128 or 256, the one above
// it whole tiles of 8, 16 or 64 rows, and up to three dims of one element placed
// anywhere but under the tiles.
func randomFlatNibbles(r *rand.Rand) (c struct {
	tiled, bytes string
	nibbles      bool
}) {
	tile := []int64{8, 16, 64}[r.IntN(3)]
	data := []int64{int64(1+r.IntN(3)) * tile, int64(128 * (1 + r.IntN(2)))}
	for range r.IntN(3) {
		data = append([]int64{int64(2 + r.IntN(2))}, data...)
	}
	// Logical dims: the data dims in order, units before any but the last.
	var dims []int64
	for i, d := range data {
		for i < len(data)-1 && r.IntN(3) == 0 {
			dims = append(dims, 1)
		}
		dims = append(dims, d)
	}
	order := func() []int { // minor to major: the last two data dims, then the rest mixed with units
		var data, units []int
		for i := len(dims) - 1; i >= 0; i-- {
			if dims[i] == 1 {
				units = append(units, i)
			} else {
				data = append(data, i)
			}
		}
		m := append([]int(nil), data[:2]...)
		rest := data[2:]
		for len(rest)+len(units) > 0 {
			if len(units) > 0 && (len(rest) == 0 || r.IntN(2) == 0) {
				j := r.IntN(len(units))
				m = append(m, units[j])
				units = append(units[:j], units[j+1:]...)
			} else {
				m, rest = append(m, rest[0]), rest[1:]
			}
		}
		return m
	}
	text := func(m []int, tiles string) string {
		return fmt.Sprintf("u4%v{%s%s}", strings.ReplaceAll(fmt.Sprint(dims), " ", ","), strings.Trim(strings.ReplaceAll(fmt.Sprint(m), " ", ","), "[]"), tiles)
	}
	c.tiled = text(order(), fmt.Sprintf(":T(%d,128)(8,1)E(4)", tile))
	c.bytes, c.nibbles = text(order(), ""), true
	return c
}
