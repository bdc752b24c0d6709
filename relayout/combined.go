package relayout

import "github.com/tpulayout/tpulayout/layout"

// planIndexer is ix, or its [layout.Uncombined] equivalent, which the fast path can plan
// with. As a guard, the two must agree on the footprint and on the offsets of the first,
// last and middle elements.
func planIndexer(ix *layout.Indexer) *layout.Indexer {
	u, ok := layout.Uncombined(ix.Shape())
	if !ok {
		return ix
	}
	ux, err := layout.Compile(u)
	if err != nil || ux.FootprintElements() != ix.FootprintElements() || ix.LogicalElements() == 0 {
		return ix
	}
	dims := ix.Dims()
	last, mid := make([]int64, len(dims)), make([]int64, len(dims))
	for i, d := range dims {
		last[i], mid[i] = d-1, d/2
	}
	for _, idx := range [][]int64{make([]int64, len(dims)), last, mid} {
		if ux.Offset(idx) != ix.Offset(idx) {
			return ix
		}
	}
	return ux
}
