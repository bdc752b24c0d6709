package relayout

import (
	"runtime"

	"github.com/tpulayout/tpulayout/simd"
)

// Same-type pair untilings into destination rows that are not a whole number of lines
// apart (bf16 [8191,8190] T(8,128)(2,1) → row-major) write each tile's 256-byte piece
// of a row in its own call, so with streaming stores a quarter of the lines are split
// between two calls, their parts stored a word at a time (simd deinterleaveSplit).
// wideTiles interior tiles along the row unpack instead into a staging buffer in L1
// with ordinary stores, whose rows then stream out with the copy kernel, one split
// line per wideTiles pieces. It pays with one worker only (runRange takes it when its
// range is the whole nest); with two it lost, as did more tiles (16: 32 KiB, out of
// L1) and the bf16 → f32 untiling, whose fused kernel streams each row in one pass
// (bench/design-notes.md).
const wideTiles = 4

// wideMax bounds the staging buffer of a worker (a plan's repeats of 2 rows each),
// to stay in L1.
const wideMax = 16 << 10

// widePad keeps the staging rows off a power-of-two stride (without it the gain went).
const widePad = 64

// planWide makes the staging buffers of a plan that unpacks consecutive tiles of a
// same-type pair deinterleave into rows of a staging buffer (see wideTiles), when it
// streams, its destination rows are whole words but not lines apart (the copy
// kernel's per-row edges; odd strides were level), and the next tile along the
// innermost loop continues the destination rows.
func (p *Plan) planWide(k kernel) {
	p.wide = nil
	if !p.stream || k.kind != kDeinterleave || k.p != 2 || k.packConv != nil || p.dt != p.st || p.dbits != p.sbits || len(p.outer) == 0 {
		return
	}
	db := int64(p.dbits / 8)
	l := p.outer[len(p.outer)-1]
	if l.tab != nil || l.size < 2 || l.dstStr != k.n || k.pstr*db%64 == 0 || k.pstr*db%4 != 0 {
		return
	}
	n := 2 * k.rep * (wideTiles*k.n*db + widePad)
	if n > wideMax || p.ragged[l.dim] && l.size < 3 {
		return // staging out of L1, or no two interior tiles along the loop
	}
	p.wide = newFreeList(max(p.opts.workers, runtime.GOMAXPROCS(0)), p.opts.workers, func() []byte { return lineAligned(n) })
}

// wideReps returns how many outer iterations from the current one (at most left) run
// as one wide group: interior blocks along the innermost loop, up to wideTiles; 0
// when fewer than two.
func (p *Plan) wideReps(ctr, e *[maxDims]int64, left int64) int64 {
	last := len(p.outer) - 1
	l := &p.outer[last]
	g := min(wideTiles, l.size-ctr[last], left)
	f := *e
	f[l.dim] += (g - 1) * l.place
	for ; g > 1; g-- {
		if p.interior(&f, p.kern.maxBlock) {
			return g
		}
		f[l.dim] -= l.place
	}
	return 0
}

// unpackWide runs g interior blocks along the innermost loop from the current
// iteration through the staging buffer w, advancing the odometer past them: repeat
// r's two rows are rows 2r and 2r+1 of w, g pieces each.
func (p *Plan) unpackWide(dst, src, w []byte, ctr, e *[maxDims]int64, dOff, sOff *int64, g int64) {
	k := &p.kern
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	row := wideTiles*k.n*db + widePad
	d0 := *dOff
	for j := range g {
		c := j * k.n * db
		k.pair(w[c:], w[row+c:], src[*sOff*sb:], int(k.n), simd.Rows{N: int(k.rep), DstStride: int(2 * row), SrcStride: int(k.repSrc * sb)})
		if p.ahead.piece > 0 {
			p.prefetchNext(src, *sOff, ctr)
		}
		step(p.outer, ctr, dOff, sOff, e)
	}
	r := simd.Rows{N: int(k.rep), DstStride: int(k.repDst * db), SrcStride: int(2 * row), Stream: true}
	for q := range int64(2) {
		p.k().CopyRows(dst[(d0+q*k.pstr)*db:], w[q*row:], int(g*k.n*db), r)
	}
}
