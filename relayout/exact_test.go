package relayout

import (
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// anyTiles draws one to three tiles of every form the parser accepts: `*` anywhere in
// the first tile but its end, and later tiles with up to two more dims than the shape
// they apply to (read with leading 1s). Issue #14: `*` plus a later wider tile was never
// drawn, and the per-element path wrote the first element everywhere.
func anyTiles(r *rand.Rand, rank int) []layout.Tile {
	sizes := []int64{1, 2, 3, 4, 8, 16}
	var tiles []layout.Tile
	cur := rank
	for n := 1 + r.IntN(3); n > 0; n-- {
		t := make(layout.Tile, 1+r.IntN(min(cur, 3)+2))
		stars, prod := 0, int64(1)
		for i := range t {
			// A tile pads each dim it covers up to a multiple: products above 64 make
			// footprints of tens of MB, which the reference walks element by element.
			t[i] = sizes[r.IntN(len(sizes))]
			for prod*t[i] > 64 {
				t[i] /= 2
			}
			prod *= t[i]
			if len(tiles) == 0 && i < len(t)-1 && r.IntN(3) == 0 {
				t[i], stars = layout.Combined, stars+1
			}
		}
		tiles = append(tiles, t)
		cur = max(cur, len(t)) - stars + len(t) - stars
	}
	return tiles
}

// widerElements sometimes sets E(n) of a sub-byte type or pred to another width a
// buffer can hold (1, 2, 4 or 8 bits, at least the type's): the random pairs only drew
// E(n) equal to a sub-byte type's width before.
func widerElements(r *rand.Rand, dt layout.DType, e int64) int64 {
	if b := int64(dt.Bits()); b < 8 && r.IntN(4) == 0 {
		w := []int64{1, 2, 4, 8}[r.IntN(4)]
		return max(w, b)
	}
	return e
}

// fitPair halves the largest dim of a pair (dims shared by both shapes) until their
// footprints together are at most 1<<20 elements: nested and wider tiles can pad a
// 300×300 array a hundredfold, and the per-element path walks every slot.
func fitPair(dst, src layout.Shape) {
	for {
		d, err1 := layout.Compile(dst)
		s, err2 := layout.Compile(src)
		if err1 != nil || err2 != nil || d.FootprintElements()+s.FootprintElements() <= 1<<20 {
			return
		}
		i := 0
		for j, n := range src.Dims {
			if n > src.Dims[i] {
				i = j
			}
		}
		if src.Dims[i] <= 1 {
			return
		}
		src.Dims[i] /= 2
		dst.Dims[i] = src.Dims[i]
	}
}

// anySameType sometimes picks any array element type (for a same-type pair), so that
// every type the parser accepts is drawn: u1, s2, f4e2m1fn, c64, the f8 kinds, ….
func anySameType(r *rand.Rand) (layout.DType, bool) {
	if r.IntN(8) != 0 {
		return layout.Invalid, false
	}
	return layout.DType(1 + r.IntN(int(layout.Token)-1)), true
}

// otherAttrs sometimes sets the attributes that do not move elements: memory space
// S(n), a split config SC(…) and prefix bytes M(n). A plan must ignore them.
func otherAttrs(r *rand.Rand, l *layout.Layout, rank int) {
	if r.IntN(16) == 0 {
		l.MemorySpace = 1 + r.Int64N(5)
	}
	if rank > 0 && r.IntN(16) == 0 {
		l.Splits = []layout.SplitConfig{{Dim: r.Int64N(int64(rank)), Indices: []int64{1 + r.Int64N(8)}}}
	}
	if r.IntN(16) == 0 {
		l.PrefixBytes = 1 + r.Int64N(64)
	}
}

// checkRoundTrip relays a random source out to the pair's destination layout and back
// to the source layout with the given kernels, and checks that every logical element
// comes back with its value bits (the type's width: E(n) may be wider). Pairs that
// convert types, and 128-bit elements, are skipped.
func checkRoundTrip(t *testing.T, r *rand.Rand, c pairCase, kernels string) {
	t.Helper()
	dst, src := c.dst, c.src
	if dst.DType != src.DType || src.DType.Bits() > 64 {
		return
	}
	there, err := NewPlan(dst, src, append([]Option{WithKernel(kernels)}, c.opts...)...)
	if err != nil {
		t.Fatalf("NewPlan(%s ← %s): %v", dst, src, err)
	}
	back, err := NewPlan(src, dst, append([]Option{WithKernel(kernels)}, c.opts...)...)
	if err != nil {
		t.Fatalf("NewPlan(%s ← %s): %v", src, dst, err)
	}
	a, mid, b := buffer.MustNew(src), buffer.MustNew(dst), buffer.MustNew(src)
	randomFill(r, a.Data)
	if err := there.Copy(mid, a); err != nil {
		t.Fatalf("%s: %v", there, err)
	}
	if err := back.Copy(b, mid); err != nil {
		t.Fatalf("%s: %v", back, err)
	}
	if a.Indexer().LogicalElements() == 0 {
		return
	}
	mask := uint64(1)<<src.DType.Bits() - 1
	idx := make([]int64, len(src.Dims))
	for {
		x, y := a.Bits(idx)&mask, b.Bits(idx)&mask
		if src.DType == layout.Pred {
			// A pred is true when its stored bits are nonzero (0x60 too), which packing
			// into fewer bits keeps as 1 (ec0874c); its low bit alone is not its value.
			x, y = truth(a, idx), truth(b, idx)
		}
		if x != y {
			t.Fatalf("%s → %s → back (%s): element %v was %#x, came back %#x", src, dst, kernels, idx, x, y)
		}
		if !layout.NextIndex(idx, src.Dims) {
			return
		}
	}
}

// truth is 1 when the element's stored bits, all of them, are nonzero.
func truth(b *buffer.Buffer, idx []int64) uint64 {
	if buffer.LoadBits(b.Data, b.Offset(idx), b.ElementBits()) != 0 {
		return 1
	}
	return 0
}
