package relayout

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/layout/algebra"
)

// copyMap is what the layout algebra says of a plan's source → destination offsets (see
// algebra.CopyMap), computed once by NewPlan.
type copyMap struct {
	// bitcast: every element is at the same offset of the same width on both sides, and
	// neither side has padding, so the relayout moves the bytes as they are. The plan then
	// runs as the copy between identical layouts, whatever the layouts' text says.
	bitcast bool
	// run is the longest run of consecutive source elements, from the first, that is
	// contiguous on both sides (algebra.MaxCommonVector); 0 when the algebra has no single
	// layout for one of the sides.
	run int64
}

// planCopyMap asks the algebra for the copy map of src → dst. A pair is a bitcast only
// when the copy cannot differ from the identical-layout copy in any byte: the same dtype
// (a conversion rewrites the bits), the same element width, no padding in either
// allocation (padding is written with the plan's fill, never copied), the map the
// identity on [0, elements), and, when a sub-byte array ends inside a byte and the plan
// leaves padding alone, not at all (the last byte's spare bits are then the
// destination's own).
func planCopyMap(dst, src layout.Shape, o options) copyMap {
	md, err := algebra.FromXLA(dst)
	if err != nil {
		return copyMap{}
	}
	ms, err := algebra.FromXLA(src)
	if err != nil {
		return copyMap{}
	}
	var c copyMap
	d, errD := md.Exact()
	s, errS := ms.Exact()
	if errD == nil && errS == nil {
		if n, err := algebra.MaxCommonVector(d, s); err == nil {
			c.run = n
		}
	}
	c.bitcast = !o.generic && dst.DType == src.DType && md.ElementBits == ms.ElementBits &&
		unpadded(md) && unpadded(ms) && identity(ms, md) &&
		(o.pad != padLeave || md.Alloc*int64(md.ElementBits)%8 == 0)
	return c
}

// unpadded reports whether m's allocation holds only its elements.
func unpadded(m algebra.Mapping) bool {
	n := int64(1)
	for _, d := range m.Dims {
		n *= d // FromXLA has checked that the allocation, ≥ n, fits
	}
	return m.Alloc == n
}

// identity reports whether the copy map from src's offsets to dst's is x ↦ x.
func identity(src, dst algebra.Mapping) bool {
	cm, err := algebra.CopyMap(src, dst)
	if err != nil {
		return false
	}
	c := algebra.Coalesce(cm)
	if !c.Shape.IsInt() {
		return false
	}
	return c.Size() == 1 || c.Stride.Value() == 1
}

// describe is the copy map's part of Plan.String.
func (c copyMap) describe() string {
	switch {
	case c.bitcast:
		return "; bitcast: every element keeps its offset"
	case c.run > 0:
		return fmt.Sprintf("; longest common run %d elements", c.run)
	}
	return ""
}
