package relayout

import (
	"runtime"

	"github.com/klauspost/cpuid/v2"

	"github.com/tpulayout/tpulayout/simd"
)

// Same-type pair untilings into destination rows that are not a whole number of lines
// apart (bf16 [8191,8190] T(8,128)(2,1) → row-major) write each tile's 256-byte piece
// of a row in its own call, so with streaming stores a quarter of the lines are split
// between two calls, their parts stored a word at a time (simd deinterleaveSplit).
// wideTiles tiles along the row (interior ones, and the row's last tile when only the
// row's end cuts it) unpack instead into a staging buffer in L1 with ordinary stores,
// whose rows then stream out with the copy kernel, one split line per wideTiles pieces
// (or, rows of up to wideTiles tiles, the staged rows as one run). More tiles (16:
// 32 KiB, out of L1) lost, as did the bf16 → f32 untiling, whose fused kernel streams
// each row in one pass (bench/design-notes.md).
const wideTiles = 4

// wideShared says that the ranges of several workers stage too, not only a range that
// is the whole nest: on Intel CPUs, where two staging workers gained; on AMD they lost
// (bench/design-notes.md). It changes speed only, never the bytes written.
var wideShared = cpuid.CPU.VendorID == cpuid.Intel

// wideMax bounds the staging buffer of a worker (a plan's repeats of 2 rows each),
// to stay in L1.
const wideMax = 16 << 10

// widePad keeps the staging rows off a power-of-two stride (without it the gain went).
const widePad = 64

// planWide returns the staging buffers of a plan that unpacks consecutive tiles of a
// same-type pair deinterleave into rows of a staging buffer (see wideTiles), when it
// streams, its destination rows are whole words but not lines apart (the copy
// kernel's per-row edges; odd strides were level), and the next tile along the
// innermost loop continues the destination rows, the repeats' rows in order.
func (p *Plan) planWide(k *packingKernel) *freeList[[]byte] {
	if !p.stream || k.interleave || k.p != 2 || k.packConv != nil || p.dt != p.st || p.dbits != p.sbits || len(p.outer) == 0 {
		return nil
	}
	db := int64(p.dbits / 8)
	l := p.outer[len(p.outer)-1]
	if l.tab != nil || l.size < 2 || l.dstStr != k.n || k.repDst != 2*k.pstr || k.pstr*db%64 == 0 || k.pstr*db%4 != 0 {
		return nil
	}
	n := 2 * k.rep * (wideTiles*k.n*db + widePad)
	if n > wideMax {
		return nil // staging out of L1
	}
	return newFreeList(max(p.opts.workers, runtime.GOMAXPROCS(0)), p.opts.workers, func() []byte { return lineAligned(n) })
}

// wideReps returns how many outer iterations from the current one (at most left) run
// as one wide group (0 when fewer than two), up to wideTiles blocks along the innermost
// loop: interior ones, the last perhaps cut by the data's end along the loop's dim
// only, and the elements of the group's last block that are data.
func (p *Plan) wideReps(ctr, e *[maxDims]int64, left int64) (g, last int64) {
	k := p.kern.base()
	l := &p.outer[len(p.outer)-1]
	g = min(wideTiles, l.size-ctr[len(p.outer)-1], left)
	f := *e
	f[l.dim] += (g - 1) * l.place
	if g > 1 && !p.interior(&f, k.maxBlock) && k.clip && k.clipDim == l.dim && k.clipOuter == nil {
		// A last tile cut only along the loop's dim runs its data prefix.
		b, at := p.bounds[l.dim], f[l.dim]
		f[l.dim] = 0
		if b.extent == b.size && at < b.size && at+k.maxBlock[l.dim] >= b.size && p.interior(&f, k.maxBlock) {
			return g, b.size - at
		}
		f[l.dim] = at
	}
	for ; g > 1; g-- {
		if p.interior(&f, k.maxBlock) {
			return g, k.n
		}
		f[l.dim] -= l.place
	}
	return 0, 0
}

// unpackWide runs g blocks along the innermost loop from the current
// iteration, the last with last elements, through the staging buffer w, advancing the
// odometer past them: repeat r's two rows are rows 2r and 2r+1 of w, as they are of
// the destination.
func (p *Plan) unpackWide(k *packingKernel, dst, src, w []byte, ctr, e *[maxDims]int64, dOff, sOff *int64, g, last int64) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	row := wideTiles*k.n*db + widePad
	// Whole rows (a group of data only, as long as the rows are apart, starts at the
	// row's start): staged as in the destination, they go out as one run.
	whole := (g-1)*k.n+last == k.pstr
	if whole {
		row = k.pstr * db
	}
	d0 := *dOff
	for j := range g {
		c, n := j*k.n*db, k.n
		if j == g-1 {
			n = last
		}
		k.pair(w[c:], w[row+c:], src[*sOff*sb:], int(n), simd.Rows{N: int(k.rep), DstStride: int(2 * row), SrcStride: int(k.repSrc * sb)})
		if p.ahead.piece > 0 {
			p.prefetchNext(src, *sOff, ctr)
		}
		step(p.outer, ctr, dOff, sOff, e)
	}
	if whole {
		p.k().CopyRows(dst[d0*db:], w, int(2*k.rep*row), simd.Rows{N: 1, Hints: simd.Hints{Stream: true}})
		return
	}
	p.k().CopyRows(dst[d0*db:], w, int(((g-1)*k.n+last)*db), simd.Rows{N: int(2 * k.rep), DstStride: int(k.pstr * db), SrcStride: int(row), Hints: simd.Hints{Stream: true}})
}
