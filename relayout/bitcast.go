package relayout

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/layout/algebra"
)

// planBitcast asks the layout algebra whether src → dst is a bitcast: every element at
// the same offset of the same width on both sides, and neither side with padding, so the
// relayout moves the bytes as they are and the plan runs as the copy between identical
// layouts, whatever the layouts' text says. A pair is a bitcast only when the copy cannot
// differ from the identical-layout copy in any byte: the same dtype (a conversion
// rewrites the bits), the same element width, no padding in either allocation (padding is
// written with the plan's fill, never copied), the copy map the identity on
// [0, elements), and not when a sub-byte array ends inside a byte and the plan leaves
// padding alone (the last byte's spare bits are then the destination's own). An empty
// array is none. The cheap conditions, and a few elements' offsets, are checked on the
// compiled indexers before the algebra is asked.
func planBitcast(p *Plan, dst, src layout.Shape) bool {
	if p.opts.generic || p.dst.LogicalElements() == 0 || p.dt != p.st || p.dbits != p.sbits ||
		p.dst.FootprintElements() != p.dst.LogicalElements() || p.src.FootprintElements() != p.src.LogicalElements() ||
		p.opts.pad == padLeave && p.dst.FootprintElements()*int64(p.dbits)%8 != 0 {
		return false
	}
	if !sameProbes(p.dst, p.src) {
		return false
	}
	md, err := algebra.FromXLA(dst)
	if err != nil {
		return false
	}
	ms, err := algebra.FromXLA(src)
	if err != nil {
		return false
	}
	return md.ElementBits == ms.ElementBits && unpadded(md) && unpadded(ms) && identity(ms, md)
}

// sameProbes reports whether a few elements (the last, and each dim's second) are at the
// same offset in both layouts: a bitcast's necessary condition, which most pairs fail.
func sameProbes(d, s *layout.Indexer) bool {
	dims := d.Dims()
	idx := make([]int64, len(dims))
	for k, n := range dims {
		if n > 1 {
			idx[k] = 1
			if d.Offset(idx) != s.Offset(idx) {
				return false
			}
			idx[k] = 0
		}
	}
	for k, n := range dims {
		idx[k] = n - 1
	}
	return d.Offset(idx) == s.Offset(idx)
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

// commonRun is the longest run of consecutive source elements, from the first, that is
// contiguous on both sides (algebra.MaxCommonVector); ok is false when the algebra has no
// single layout on the exact dims for one of the sides.
func (p *Plan) commonRun() (n int64, ok bool) {
	md, err := algebra.FromXLA(p.dst.Shape())
	if err != nil {
		return 0, false
	}
	ms, err := algebra.FromXLA(p.src.Shape())
	if err != nil {
		return 0, false
	}
	d, err := md.Exact()
	if err != nil {
		return 0, false
	}
	s, err := ms.Exact()
	if err != nil {
		return 0, false
	}
	n, err = algebra.MaxCommonVector(d, s)
	return n, err == nil
}

// describeMap is the copy map's part of Plan.String.
func (p *Plan) describeMap() string {
	if p.bitcast {
		return "; bitcast: every element keeps its offset"
	}
	if n, ok := p.commonRun(); ok {
		return fmt.Sprintf("; longest common run %d elements", n)
	}
	return ""
}

// packedCopy is a bitcast of packed sub-byte elements (E(4), E(2), E(1)) run as the
// identical-layout copy of the footprint's bytes: the elements move in whole bytes,
// where the sub-byte executor would unpack, copy and pack them.
type packedCopy struct {
	inner *Plan // u8[footprint bytes] to itself, with the plan's options
}

// planPackedCopy returns the byte copy for a sub-byte bitcast p.
func planPackedCopy(p *Plan, opts []Option) *packedCopy {
	if !p.bitcast || p.dbits >= 8 {
		return nil
	}
	s := layout.Shape{Kind: layout.Array, DType: layout.U8, Dims: []int64{p.dst.FootprintBytes()}, Layout: layout.Layout{MinorToMajor: []int{0}}}
	inner, err := newPlan(s, s, opts)
	if err != nil || inner.isReference() {
		return nil
	}
	return &packedCopy{inner}
}

func (e *packedCopy) copy(dst, src []byte) { e.inner.exec.copy(dst, src) }
func (e *packedCopy) kernel() string       { return e.inner.exec.kernel() }
func (e *packedCopy) describe() string {
	return fmt.Sprintf("on bytes (%s): %s", e.inner.exec.kernel(), e.inner.exec.describe())
}
