package relayout

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// twoPass runs a plan in two passes through a row-major array: for layout pairs whose
// direct kernel moves a few bytes per call while each half has a good one. bf16
// {1,0:T(8,128)(2,1)} → {0,1:T(8,128)(2,1)} packs pairs along different dims on the two
// sides, so no unit is contiguous on both and the direct plan interleaves two elements
// at a time; through row-major it is a deinterleave and a transpose of pairs.
type twoPass struct {
	first, second *Plan
	bufs          *freeList[[]byte] // row-major arrays
}

// poor reports whether a compiled plan's inner kernel moves 16 bytes or less per run,
// element by element or not at all (the per-element path).
func (p *Plan) poor() bool {
	switch {
	case p.isReference() || p.kern.kind() == kElem:
		return true
	case p.kern.kind() == kTranspose:
		return false
	}
	return p.kern.base().n*max(packedRows(p.kern), 1)*int64(min(p.dbits, p.sbits))/8 <= 16
}

// planTwoPass returns the two-pass executor for dst ← src when the direct plan p is poor
// and both passes, through a row-major array of the source's type, are not.
func planTwoPass(p *Plan, dst, src layout.Shape, opts []Option) *twoPass {
	if p.isReference() || !p.poor() || p.dbits%8 != 0 || p.sbits%8 != 0 {
		return nil
	}
	mid := layout.Shape{DType: src.DType, Dims: src.Dims, Layout: layout.Layout{MinorToMajor: layout.RowMajor(len(src.Dims))}}
	first, err1 := newPlan(mid, src, opts)
	second, err2 := newPlan(dst, mid, opts)
	if err1 != nil || err2 != nil || first.poor() || second.poor() {
		return nil
	}
	n := first.dst.FootprintBytes()
	// One array made now, so that Copy does not allocate.
	return &twoPass{first: first, second: second, bufs: newFreeList(1, 1, func() []byte { return make([]byte, n) })}
}

func (v *twoPass) copy(dst, src []byte) {
	mid := v.bufs.get()
	v.first.exec.copy(mid, src)
	v.second.exec.copy(dst, mid)
	v.bufs.put(mid)
}

func (v *twoPass) kernel() string { return v.first.Kernel() + "+" + v.second.Kernel() }

func (v *twoPass) describe() string {
	return fmt.Sprintf("two passes through row-major: %s; then %s", v.first, v.second)
}
