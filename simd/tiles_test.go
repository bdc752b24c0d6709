package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// refTiles is Transpose32Tiles element by element, from its formula.
func refTiles(dst []byte, ds, gs, g int, src []byte, ss int, rows, cols int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			o := j/g*gs + j%g*ds + 4*i
			copy(dst[o:o+4], src[i*ss+4*j:i*ss+4*j+4])
		}
	}
}

// TestTranspose32Tiles checks every implementation's Transpose32Tiles against the
// formula: whole 16×16 blocks and odd edges, groups of 2, 4 and 8 (the kernels) and
// others, destinations on and off line boundaries, streaming or not.
func TestTranspose32Tiles(t *testing.T) {
	forTileCases(t, 41, 42, func(t *testing.T, k *Kernels, r *rand.Rand, c tileCase) {
		if r.IntN(2) == 0 { // the relayout plans': lines apart, groups of whole tiles
			c.ss = max(c.ss, 64<<r.IntN(3))
			c.ds = (max(c.ds, 64) + 63) / 64 * 64
		}
		c.gs = c.g*c.ds + 64*r.IntN(3)
		if r.IntN(6) == 0 {
			c.gs = c.rows*4 + 4*r.IntN(10) // groups closer than g rows: they interleave
		}
		c.stream = r.IntN(2) == 0
		rows, cols, g, ss, ds, gs := c.rows, c.cols, c.g, c.ss, c.ds, c.gs
		srcLen, dstLen := 0, 0
		if rows > 0 && cols > 0 {
			srcLen = (rows-1)*ss + cols*4
			dstLen = tileRow(cols-1, ds, gs, g) + rows*4
			if cols > g {
				dstLen = max(dstLen, tileRow((cols-1)/g*g-1, ds, gs, g)+rows*4)
			}
		}
		if gs < g*ds && gs > 0 && overlaps(rows, cols, ds, gs, g) {
			return
		}
		src, fill, off := c.buffers(r, srcLen, dstLen)
		checkDst(t, c.String(), fill, off,
			func(dst []byte) { refTiles(dst, ds, gs, g, src, ss, rows, cols) },
			func(dst []byte) { k.Transpose32Tiles(dst, ds, gs, g, src, ss, rows, cols, c.stream); k.Fence() })
	})
}

// tileCase is one random case of TestTranspose32Tiles or TestTranspose32FromTiles:
// rows×cols 4-byte elements, the rows on the tiled side in groups of g, gs bytes
// apart, the source rows ss and the destination rows ds bytes apart.
type tileCase struct {
	rows, cols, g, ss, ds, gs int
	stream                    bool
}

func (c tileCase) String() string {
	return fmt.Sprintf("%dx%d g=%d ss=%d ds=%d gs=%d stream=%v", c.rows, c.cols, c.g, c.ss, c.ds, c.gs, c.stream)
}

// buffers returns a guarded source of srcLen random bytes, the random bytes that
// the destination holds before the kernel writes it, and the destination's offset
// from a line.
func (c tileCase) buffers(r *rand.Rand, srcLen, dstLen int) (src, fill []byte, off int) {
	sg := newGuarded(srcLen, 4*r.IntN(16))
	copy(sg.b(), randBytes(r, srcLen))
	fill = randBytes(r, dstLen)
	return sg.b(), fill, []int{0, 0, 4, 16, 36}[r.IntN(5)]
}

// forTileCases runs check for every implementation on random tile cases from the
// PCG seed (s1, s2): edge and whole-block sizes, groups of 2, 4 and 8 (the kernels)
// and others, strides at least a row, streaming or not.
func forTileCases(t *testing.T, s1, s2 uint64, check func(*testing.T, *Kernels, *rand.Rand, tileCase)) {
	r := rand.New(rand.NewPCG(s1, s2))
	dims := []int{0, 1, 3, 4, 8, 15, 16, 17, 31, 32, 33, 48, 64, 65, 100, 300}
	iters := 400
	if testing.Short() {
		iters = 100
	}
	for _, k := range Available() {
		t.Run(k.Name, func(t *testing.T) {
			for range iters {
				c := tileCase{rows: dims[r.IntN(len(dims))], cols: dims[r.IntN(len(dims))]}
				c.g = []int{4, 8, 2, 4, 8, 2, 1, 3, 5, 16}[r.IntN(10)]
				c.ss = c.cols*4 + 4*r.IntN(3)*r.IntN(20)
				c.ds = c.rows*4 + 4*r.IntN(3)*r.IntN(20)
				check(t, k, r, c)
			}
		})
	}
}

// overlaps reports whether two destination rows of a Transpose32Tiles share bytes.
func overlaps(rows, cols, ds, gs, g int) bool {
	seen := map[int]bool{}
	for j := 0; j < cols; j++ {
		o := tileRow(j, ds, gs, g)
		for i := 0; i < rows; i++ {
			if seen[o+4*i] {
				return true
			}
			seen[o+4*i] = true
		}
	}
	return false
}

func TestTranspose32TilesBounds(t *testing.T) {
	for _, k := range Available() {
		src := make([]byte, 32*64)
		// 32×16 into groups of 8: the last group's last row ends at 4096+7*128+128.
		testenv.MustPanic(t, k.Name+" Transpose32Tiles short dst", func() {
			k.Transpose32Tiles(make([]byte, 4096+7*128+127), 128, 4096, 8, src, 64, 32, 16, false)
		})
		testenv.MustPanic(t, k.Name+" Transpose32Tiles short src", func() {
			k.Transpose32Tiles(make([]byte, 8192), 128, 4096, 8, src[:31*64+63], 64, 32, 16, false)
		})
		k.Transpose32Tiles(make([]byte, 4096+7*128+128), 128, 4096, 8, src, 64, 32, 16, false)
		// Its inverse: 32 source rows in groups of 8, 16 columns.
		tiles := make([]byte, 4096*3+7*128+64)
		testenv.MustPanic(t, k.Name+" Transpose32FromTiles short src", func() {
			k.Transpose32FromTiles(make([]byte, 15*128+128), 128, tiles[:len(tiles)-1], 128, 4096, 8, 32, 16, false)
		})
		testenv.MustPanic(t, k.Name+" Transpose32FromTiles short dst", func() {
			k.Transpose32FromTiles(make([]byte, 15*128+127), 128, tiles, 128, 4096, 8, 32, 16, false)
		})
		k.Transpose32FromTiles(make([]byte, 15*128+128), 128, tiles, 128, 4096, 8, 32, 16, false)
	}
}

// refFromTiles is Transpose32FromTiles element by element, from its formula.
func refFromTiles(dst []byte, ds int, src []byte, ss, gs, g int, rows, cols int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			o := i/g*gs + i%g*ss + 4*j
			copy(dst[j*ds+4*i:j*ds+4*i+4], src[o:o+4])
		}
	}
}

// TestTranspose32FromTiles checks every implementation's Transpose32FromTiles against
// the formula, as TestTranspose32Tiles does for Transpose32Tiles.
func TestTranspose32FromTiles(t *testing.T) {
	forTileCases(t, 43, 44, func(t *testing.T, k *Kernels, r *rand.Rand, c tileCase) {
		if r.IntN(2) == 0 { // the relayout plans': tile rows and destination rows lines apart
			c.ss = (max(c.ss, 64) + 63) / 64 * 64
			c.ds = (max(c.ds, 64<<r.IntN(3)) + 63) / 64 * 64
		}
		c.gs = c.g*c.ss + 64*r.IntN(3)
		if r.IntN(6) == 0 {
			c.gs = c.cols*4 + 4*r.IntN(10) // groups closer than g rows: reads may interleave
		}
		c.stream = r.IntN(2) == 0
		rows, cols, g, ss, ds, gs := c.rows, c.cols, c.g, c.ss, c.ds, c.gs
		srcLen, dstLen := 0, 0
		if rows > 0 && cols > 0 {
			srcLen = tileRow(rows-1, ss, gs, g) + cols*4
			if rows > g {
				srcLen = max(srcLen, tileRow((rows-1)/g*g-1, ss, gs, g)+cols*4)
			}
			dstLen = (cols-1)*ds + rows*4
		}
		src, fill, off := c.buffers(r, srcLen, dstLen)
		checkDst(t, c.String(), fill, off,
			func(dst []byte) { refFromTiles(dst, ds, src, ss, gs, g, rows, cols) },
			func(dst []byte) { k.Transpose32FromTiles(dst, ds, src, ss, gs, g, rows, cols, c.stream); k.Fence() })
	})
}

func TestTileKernels(t *testing.T) {
	for _, k := range Available() {
		for g := 1; g <= 16; g++ {
			want := (k.Name == "avx512" || k.Name == "avx2") && (g == 2 || g == 4 || g == 8)
			if got := k.TileKernels(g); got != want {
				t.Errorf("%s: TileKernels(%d) = %v, want %v", k.Name, g, got, want)
			}
		}
	}
}
