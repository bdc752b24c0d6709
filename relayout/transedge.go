package relayout

import (
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// Edge blocks of a transpose.
//
// A transpose block that reaches past the data along its own two loops (an odd dim, or
// one that the block size does not divide: 1000×1000 in 512² blocks) is still a
// transpose, of fewer rows or columns: its data is a rectangle at the block's corner.
// Walked element by element instead, such blocks dominated the whole copy's time
// (bench/design-notes.md). A block beyond the data along an outer loop (an
// uneven split of permuteOrder) holds no data at all.

// transEdge says how a transpose kernel's blocks can be clipped: its column loop (x,
// source-contiguous) and row loop (y, destination-contiguous) are the only inner loops
// along the dims that leave the data (a unit loop may share a dim that does not: the
// pairs of f32 → bf16 T(8,128)(2,1)).
type transEdge struct {
	ok             bool
	xDim, yDim     int
	xPlace, yPlace int64
}

// clipTranspose fills k.tedge for a transpose kernel, once p.inner and p.ragged are set.
func (p *Plan) clipTranspose(k *transposeKernel) {
	x, y := -1, -1
	for i, l := range p.inner {
		switch {
		case x < 0 && l.srcStr == k.unit && l.dstStr == k.dstRow && l.size == k.cols && l.size > 1:
			x = i
		case y < 0 && l.dstStr == k.unit && l.srcStr == k.srcRow && l.size == k.rows && l.size > 1:
			y = i
		}
	}
	if x < 0 || y < 0 {
		return
	}
	xd, yd := p.inner[x].dim, p.inner[y].dim
	if xd == yd && p.ragged[xd] {
		return
	}
	for i, l := range p.inner {
		if i != x && i != y && p.ragged[l.dim] { // a unit loop, or another along a dim that leaves the data
			return
		}
	}
	k.tedge = transEdge{ok: true, xDim: xd, yDim: yd, xPlace: p.inner[x].place, yPlace: p.inner[y].place}
}

// clipCount is how many of n values at place pl from coordinate e lie below limit.
func clipCount(e, pl, n, limit int64) int64 {
	if e >= limit {
		return 0
	}
	return min(layout.CeilDiv(limit-e, pl), n)
}

// transEdgeBlock runs one transpose block at e that reaches past the data, for a kernel
// whose tedge is ok: the data rectangle, then the destination padding around it.
func (p *Plan) transEdgeBlock(k *transposeKernel, dst, src, scratch []byte, dOff, sOff int64, e *[maxDims]int64) {
	t := &k.tedge
	inData := true
	for d, r := range p.ragged {
		if !r || d == t.xDim || d == t.yDim {
			continue
		}
		b := p.bounds[d]
		if e[d] >= b.extent {
			return // no slot of the block is in the destination
		}
		if e[d] >= b.size {
			inData = false
		}
	}
	bx, by := p.bounds[t.xDim], p.bounds[t.yDim]
	cx := clipCount(e[t.xDim], t.xPlace, k.cols, bx.extent) // destination rows
	ry := clipCount(e[t.yDim], t.yPlace, k.rows, by.extent) // and their elements
	cc, rr := int64(0), int64(0)
	if inData {
		cc = clipCount(e[t.xDim], t.xPlace, k.cols, bx.size)
		rr = clipCount(e[t.yDim], t.yPlace, k.rows, by.size)
	}
	if cc > 0 && rr > 0 {
		p.transRect(k, dst, src, scratch, dOff, sOff, rr, cc)
	}
	if p.opts.pad == padLeave || cc == cx && rr == ry {
		return
	}
	for j := range cx {
		o := dOff + j*k.dstRow
		from := rr
		if j >= cc {
			from = 0
		}
		if from < ry {
			p.pad(dst, o+from*k.unit, o+ry*k.unit)
		}
	}
}

// transRect transposes the rows×cols corner of a block (units of k.unit elements).
func (p *Plan) transRect(k *transposeKernel, dst, src, scratch []byte, dOff, sOff, rows, cols int64) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	if k.conv == nil {
		p.transLines(k, dst[dOff*db:], int(k.dstRow*db), src[sOff*sb:], int(k.srcRow*sb), int(rows), int(cols))
		return
	}
	if k.convFirst {
		n := cols * k.unit
		k.conv(scratch, src[sOff*sb:], int(n), simd.Rows{N: int(rows), DstStride: int(n * db), SrcStride: int(k.srcRow * sb)})
		p.transLines(k, dst[dOff*db:], int(k.dstRow*db), scratch, int(n*db), int(rows), int(cols))
		return
	}
	n := rows * k.unit
	p.transLines(k, scratch, int(n*sb), src[sOff*sb:], int(k.srcRow*sb), int(rows), int(cols))
	k.conv(dst[dOff*db:], scratch, int(n), simd.Rows{N: int(cols), DstStride: int(k.dstRow * db), SrcStride: int(n * sb), Hints: simd.Hints{Stream: p.stream}})
}

// transLines runs the kernel's transpose of rows×cols units as calls whose rows and
// columns are whole multiples of a cache line of units (16 f32, 32 bf16, 64 bytes), or,
// on an f32 side shorter than a line, of the 4-wide blocks the simd kernels also have:
// the rest is one more such block, overlapping the part before it, whose units it
// writes again with the same values. The simd kernels leave the units past their last
// whole block to scalar code, which for odd blocks (63×61 f32, the 4-D permutations of
// odd dims) took more time than the whole blocks (bench/design-notes.md).
func (p *Plan) transLines(k *transposeKernel, dst []byte, ds int, src []byte, ss int, rows, cols int) {
	w := p.transUnit(k)
	var rp, cp [2][2]int // the parts of each side: first unit and count
	nr, nc := lineParts(rows, w, &rp), lineParts(cols, w, &cp)
	for _, r := range rp[:nr] {
		for _, c := range cp[:nc] {
			k.trans(dst[c[0]*ds+r[0]*w:], ds, src[r[0]*ss+c[0]*w:], ss, r[1], c[1])
		}
	}
}

// transUnit is the bytes of a transpose unit where the kernel moves it (see bind).
func (p *Plan) transUnit(k *transposeKernel) int {
	if k.conv != nil && !k.convFirst {
		return int(k.unit) * p.sbits / 8
	}
	return int(k.unit) * p.dbits / 8
}

// splitLines reports whether transLines would cut a rows×cols transpose in parts.
func (p *Plan) splitLines(k *transposeKernel, rows, cols int) bool {
	var parts [2][2]int
	w := p.transUnit(k)
	return lineParts(rows, w, &parts) > 1 || lineParts(cols, w, &parts) > 1
}

// lineParts cuts n units of w bytes into a run of whole blocks and, when n is not a
// multiple of the block, one block at the end that overlaps it; it returns how many
// parts it made.
func lineParts(n, w int, parts *[2][2]int) int {
	g := 64 / w // a line
	if n < g && w == 4 {
		g = 4 // the kernels' narrow blocks (16-bit ones gained nothing)
	}
	parts[0] = [2]int{0, n}
	if n < g || n%g == 0 {
		return 1
	}
	parts[0][1] = n / g * g
	parts[1] = [2]int{n - g, g}
	return 2
}
