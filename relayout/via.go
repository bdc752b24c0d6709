package relayout

import "github.com/tpulayout/tpulayout/layout"

// via is a plan done in two passes through a row-major array: for layout pairs whose
// direct kernel moves a few bytes per call while each half has a good one. bf16
// {1,0:T(8,128)(2,1)} → {0,1:T(8,128)(2,1)} packs pairs along different dims on the two
// sides, so no unit is contiguous on both and the direct plan interleaves two elements
// at a time; through row-major it is a deinterleave and a transpose of pairs.
type via struct {
	first, second *Plan
	bufs          chan []byte // free row-major buffers (see getScratch)
}

// poor reports whether a compiled plan's inner kernel moves 16 bytes or less per run,
// element by element or not at all (the per-element path).
func (p *Plan) poor() bool {
	k := &p.kern
	switch {
	case !p.fast || k.kind == kElem:
		return true
	case k.kind == kTranspose:
		return false
	}
	return k.n*max(k.p, 1)*int64(min(p.dbits, p.sbits))/8 <= 16
}

// planVia returns the two-pass plan for dst ← src when the direct plan p is poor and both
// passes, through a row-major array of the source's type, are not.
func planVia(p *Plan, dst, src layout.Shape, opts []Option) *via {
	if !p.fast || !p.poor() || p.dbits%8 != 0 || p.sbits%8 != 0 {
		return nil
	}
	mid := layout.Shape{DType: src.DType, Dims: src.Dims, Layout: layout.Layout{MinorToMajor: layout.RowMajor(len(src.Dims))}}
	first, err1 := newPlan(mid, src, opts)
	second, err2 := newPlan(dst, mid, opts)
	if err1 != nil || err2 != nil || first.poor() || second.poor() {
		return nil
	}
	v := &via{first: first, second: second, bufs: make(chan []byte, 1)}
	v.bufs <- make([]byte, first.dst.FootprintBytes()) // made now, so that Copy does not allocate
	return v
}

// run copies through a row-major buffer from the free list.
func (v *via) run(dst, src []byte) {
	var mid []byte
	select {
	case mid = <-v.bufs:
	default:
		mid = make([]byte, v.first.dst.FootprintBytes())
	}
	v.first.run(mid, src)
	v.second.run(dst, mid)
	select {
	case v.bufs <- mid:
	default:
	}
}
