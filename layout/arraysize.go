package layout

// XLAArraySize is the size in bytes that XLA's ShapeUtil::ArraySize gives a dense array
// shape, and whether it gives one. XLA sizes an untiled layout as its elements, and a
// tiled one from its first tile alone: the physical dims under the tile (a dim the
// shape lacks counts as 1) are rounded up to the tile's, the others kept, the count
// rounded up to L(n), then converted at E(n) or the type's width. It assumes the later
// tiles add no padding; where one does not divide the tile above it (f32[3,5] under
// T(2,2)(3,1)), the nested footprint the index math needs is larger (see
// [Indexer.FootprintBytes]). ok is false where XLA's answer is not defined here: a
// combined dim '*' (XLA's code reads it as a size), split configs, unbounded dims, a
// sparse layout, or an overflow.
func XLAArraySize(s Shape) (bytes int64, ok bool) {
	l := s.Layout
	if s.Kind != Array || l.IsSparse() || len(l.Splits) > 0 {
		return 0, false
	}
	for _, d := range s.Dims {
		if d < 0 {
			return 0, false
		}
	}
	m2m := l.MinorToMajor
	if m2m == nil {
		m2m = RowMajor(len(s.Dims))
	}
	n := int64(1)
	if len(l.Tiles) == 0 {
		for _, d := range s.Dims {
			n = mulCheck(n, d)
		}
	} else {
		t := l.Tiles[0]
		k := len(t)
		for i := range max(k, len(s.Dims)) {
			d := int64(1)
			if i < len(s.Dims) {
				d = s.Dims[m2m[i]]
			}
			if i < k {
				if t[k-1-i] == Combined {
					return 0, false
				}
				d = mulCheck(ceilDiv(d, t[k-1-i]), t[k-1-i])
			}
			n = mulCheck(n, d)
		}
		if a := l.TailPadding; a > 1 {
			n = mulCheck(ceilDiv(n, a), a)
		}
	}
	bits := int64(s.DType.StorageBits())
	if l.ElementBits > 0 {
		bits = l.ElementBits
	}
	b := mulCheck(n, bits)
	if n < 0 || b < 0 {
		return 0, false
	}
	return ceilDiv(b, 8), true
}
