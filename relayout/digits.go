package relayout

import (
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// A side's digit as a place interval of one logical dim e: value = (e / lo) % span,
// where span == 0 marks the top digit (value = e / lo).
type interval struct {
	lo, span int64
	size     int64 // the digit's size (span, or the top's count)
	stride   int64 // element stride of this digit on its side
}

// loop is one dim of the common iteration space: a digit of logical dim `dim` with place
// value `place`, its size, and its element strides on both sides. Dims ≥ rank are
// destination-only digits (from leading size-1 dims a tile added): value 0 is data,
// anything else padding.
//
// A table loop walks the data values of a whole logical dim whose digits do not nest on
// the two sides (T(8,128) → T(6,128): row r is at (r/8, r%8) in one, (r/6, r%6) in the
// other): tab holds each value's offsets, and the strides are unused.
type loop struct {
	size           int64
	dstStr, srcStr int64
	dim            int
	place          int64
	tab            *table
}

// table is a table loop's element offsets per value, on each side.
type table struct{ dst, src []int64 }

// maxTable bounds a table loop's values (16 bytes each).
const maxTable = 1 << 22

// bound is what an element's coordinate along one dim may be: data below size; padding
// below extent (destination memory); beyond extent the slot belongs to no destination
// element and is skipped.
type bound struct{ size, extent int64 }

// sideIntervals reads an Indexer's digits as place intervals per logical dim. A dim
// whose tile chain does not nest (its digits are not place intervals, or do not tile its
// range) is marked irregular, for a table loop. It fails (ok false) for combined dims,
// which the per-element path handles. Digits of leading padded dims come back as extra.
func sideIntervals(ix *layout.Indexer) (per [][]interval, irregular []bool, extra []layout.Digit, ok bool) {
	shape := ix.Shape()
	rank := ix.Rank()
	if lv := ix.Levels(); len(lv) > 1 && lv[1].Name == "combined" {
		return nil, nil, nil, false
	}
	per = make([][]interval, rank)
	irregular = make([]bool, rank)
	for _, d := range ix.Digits() {
		if d.Size == 1 {
			continue
		}
		if d.Base < 0 {
			extra = append(extra, d)
			continue
		}
		dim := shape.Layout.MinorToMajor[rank-1-d.Base]
		lo, span := int64(1), int64(0)
		for _, o := range d.Ops {
			if o.Div > 0 {
				if span != 0 {
					if span%o.Div != 0 {
						irregular[dim] = true
					}
					span /= o.Div
				}
				lo *= o.Div
			} else if span == 0 || span%o.Mod == 0 {
				span = o.Mod
			} else if o.Mod%span != 0 {
				irregular[dim] = true
			}
		}
		if span != 0 && span != d.Size {
			irregular[dim] = true
		}
		per[dim] = append(per[dim], interval{lo, span, d.Size, d.Stride})
	}
	// Each dim's digits must tile its place range exactly; the last one is the top (a
	// top of size 1 was dropped, leaving a finite span that covers the dim).
	for dim := range per {
		iv := per[dim]
		slices.SortFunc(iv, func(a, b interval) int { return cmpInt(a.lo, b.lo) })
		next := int64(1)
		for i, v := range iv {
			top := i == len(iv)-1
			if v.lo != next || v.span == 0 && !top || top && v.span != 0 && v.lo*v.span < shape.Dims[dim] {
				irregular[dim] = true
			}
			next = v.lo * v.span
		}
		if len(iv) == 0 && shape.Dims[dim] > 1 {
			irregular[dim] = true
		}
	}
	return per, irregular, extra, true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// commonLoops refines both sides' digits to one decomposition in which every loop is a
// whole digit of each side, so that both buffers are strided views of one iteration
// space. A dim whose place values do not form one divisibility chain on the two sides
// becomes a table loop over its data values instead (tables, walked outermost, none for
// a dim of size 1; irregular says there are such dims, whose destination padding is
// left to the caller). ok is false for combined dims and for tables too large to hold.
func commonLoops(dst, src *layout.Indexer) (loops, tables []loop, bounds []bound, irregular, ok bool) {
	dper, dirr, dextra, ok1 := sideIntervals(dst)
	sper, sirr, _, ok2 := sideIntervals(src)
	if !ok1 || !ok2 {
		return nil, nil, nil, false, false
	}
	dims := dst.Dims()
	for dim := range dims {
		size := dims[dim]
		var places []int64
		for _, v := range dper[dim] {
			places = append(places, v.lo)
		}
		for _, v := range sper[dim] {
			places = append(places, v.lo)
		}
		slices.Sort(places)
		places = slices.Compact(places)
		chain := !dirr[dim] && !sirr[dim]
		for i := 1; i < len(places); i++ {
			chain = chain && places[i]%places[i-1] == 0
		}
		if !chain {
			irregular = true
			if size > maxTable {
				return nil, nil, nil, false, false
			}
			bounds = append(bounds, bound{size, size})
			if size > 1 {
				tab := &table{dst.DimOffsets(dim), src.DimOffsets(dim)}
				tables = append(tables, loop{size: size, dim: dim, place: 1, tab: tab})
			}
			continue
		}
		if len(places) == 0 {
			places = []int64{1}
		}
		extent := size
		if n := len(dper[dim]); n > 0 {
			top := dper[dim][n-1]
			extent = top.lo * top.size
		}
		bounds = append(bounds, bound{size, extent})
		for i, p := range places {
			n := layout.CeilDiv(extent, p)
			if i+1 < len(places) {
				n = places[i+1] / p
			}
			if n <= 1 {
				continue
			}
			loops = append(loops, loop{size: n, dstStr: strideAt(dper[dim], p), srcStr: strideAt(sper[dim], p), dim: dim, place: p})
		}
	}
	for _, d := range dextra {
		bounds = append(bounds, bound{1, d.Size})
		loops = append(loops, loop{size: d.Size, dstStr: d.Stride, dim: len(bounds) - 1, place: 1})
	}
	// Destination order: the most major first, so writes are sequential.
	slices.SortStableFunc(loops, func(a, b loop) int { return cmpInt(b.dstStr, a.dstStr) })
	return loops, tables, bounds, irregular, true
}

// strideAt is the element stride of place value p on a side.
func strideAt(iv []interval, p int64) int64 {
	for i := len(iv) - 1; i >= 0; i-- {
		if iv[i].lo <= p {
			return iv[i].stride * (p / iv[i].lo)
		}
	}
	return 0
}
