package layout

// Derived address facts of a compiled layout, for callers that walk a buffer faster than
// one Offset call per element: per-dim offset tables, the expanded element count, the
// dense test and the first tile's extents. They follow from the same digits as Offset.

// DimOffset is the element offset of the logical index that is v along dim and 0 along
// every other dim: the part of an offset that dim contributes. v must be in
// [0, Dims()[dim]). When the layout is [Indexer.Separable], an offset is the sum of its
// dims' parts: Offset(idx) = Σ_d DimOffset(d, idx[d]).
func (ix *Indexer) DimOffset(dim int, v int64) int64 {
	off := int64(0)
	for i := range ix.digits {
		d := &ix.digits[i]
		if bv, ok := ix.baseValueOf(d.Base, dim, v); ok {
			off += d.Eval(bv) * d.Stride
		}
	}
	return off
}

// DimOffsets returns DimOffset(dim, v) for every v in [0, Dims()[dim]), in a new slice of
// Dims()[dim] entries (the caller bounds that size).
func (ix *Indexer) DimOffsets(dim int) []int64 {
	offs := make([]int64, ix.dims[dim])
	for i := range ix.digits {
		d := &ix.digits[i]
		if _, ok := ix.baseValueOf(d.Base, dim, 0); !ok || d.Size == 1 {
			continue // Eval is 0 for every value
		}
		for v := range offs {
			bv, _ := ix.baseValueOf(d.Base, dim, int64(v))
			offs[v] += d.Eval(bv) * d.Stride
		}
	}
	return offs
}

// baseValueOf is the value of base dim b for the index that is v along dim and 0
// elsewhere; ok is false when dim is not part of b (the value is then 0).
func (ix *Indexer) baseValueOf(b, dim int, v int64) (int64, bool) {
	if b < 0 {
		return 0, false
	}
	bd := ix.base[b]
	for _, t := range ix.baseTerm[bd.first : bd.first+bd.n] {
		if t.dim == dim {
			return v * t.mult, true
		}
	}
	return 0, false
}

// Separable reports whether every digit of the expanded shape depends on one logical dim
// only, so that Offset(idx) = Σ_d DimOffset(d, idx[d]) for every idx. Only combined dims
// `*` that merge two dims of size above 1 break that.
func (ix *Indexer) Separable() bool {
	for _, bd := range ix.base {
		n := 0
		for _, t := range ix.baseTerm[bd.first : bd.first+bd.n] {
			if t.size > 1 {
				n++
			}
		}
		if n > 1 {
			return false
		}
	}
	return true
}

// ExpandedElements is the element count of the final expanded shape: the footprint
// before L(n) tail padding. Offsets from ExpandedElements to FootprintElements are tail
// padding.
func (ix *Indexer) ExpandedElements() int64 { return ix.expanded }

// IsRowMajorDense reports whether the footprint holds exactly the logical elements in
// row-major (C) order: no tiles, the layout {n-1,…,0}, whole-byte elements and no
// padding, so that element offset = row-major linear index. Prefix bytes M(n) lie
// outside the footprint and are not considered.
func (ix *Indexer) IsRowMajorDense() bool { return ix.dense(false) }

// IsColumnMajorDense is [Indexer.IsRowMajorDense] for column-major (Fortran) order, the
// layout {0,1,…,n-1}.
func (ix *Indexer) IsColumnMajorDense() bool { return ix.dense(true) }

func (ix *Indexer) dense(columnMajor bool) bool {
	l := ix.shape.Layout
	if len(l.Tiles) > 0 || ix.bits%8 != 0 || ix.footprint != ix.logical {
		return false
	}
	n := len(ix.dims)
	for i, d := range l.MinorToMajor {
		want := n - 1 - i
		if columnMajor {
			want = i
		}
		if d != want {
			return false
		}
	}
	return true
}

// FirstTileExtent is how many values of logical dim dim one tile of the first tiling
// level spans: the first tile's entry over dim's physical position, or 1 when the layout
// is untiled or its first tile does not reach that position (dims beyond a tile's rank
// are not tiled). ok is false when that entry is not about dim alone: it is a combined
// `*`, or the entry before it combines another dim into dim.
func (ix *Indexer) FirstTileExtent(dim int) (extent int64, ok bool) {
	l := ix.shape.Layout
	if len(l.Tiles) == 0 {
		return 1, true
	}
	rank := len(l.MinorToMajor)
	j := 0 // dim's physical position, 0 = majormost
	for p := range rank {
		if l.MinorToMajor[rank-1-p] == dim {
			j = p
		}
	}
	t := l.Tiles[0]
	k := len(t)
	if j < rank-k {
		return 1, true
	}
	i := j - (rank - k) // the entry over j
	if t[i] == Combined || j > 0 && i > 0 && t[i-1] == Combined {
		return 0, false
	}
	return t[i], true
}

// CeilDiv is ⌈a/b⌉ for a ≥ 0, b ≥ 1: how many tiles of b values cover a dim of a values.
func CeilDiv(a, b int64) int64 { return ceilDiv(a, b) }

// Elements is the product of dims: the element count of an array of those dims, 1 for
// none (a scalar).
func Elements(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}
