package relayout

import (
	"encoding/binary"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// maxDims bounds the dims a fast plan tracks, so the executor's state lives on the stack.
const maxDims = 64

// run performs a copy as total iterations of part (the loop nest's outer iterations, or
// destination elements for the per-element path), split over workers, with the
// destination's padding.
func (p *Plan) run(dst, src []byte, part func(dst, src []byte, lo, hi int64), total int64) {
	w := p.opts.split.workersFor(int64(p.opts.workers), p.src.FootprintBytes()+p.dst.FootprintBytes(), total)
	if p.dbits%8 != 0 {
		w = 1 // sub-byte elements of two workers could share a byte
	}
	if p.prefill && p.opts.pad != padLeave {
		p.pad(dst, 0, p.dst.ExpandedElements())
	}
	if w <= 1 {
		part(dst, src, 0, total)
	} else {
		parallel(part, dst, src, total, w)
	}
	if p.opts.pad != padLeave {
		p.pad(dst, p.dst.ExpandedElements(), p.dst.FootprintElements())
	}
}

// pad writes the padding value to destination elements [from, to): with clear or
// simd's Fill when elements are whole bytes.
func (p *Plan) pad(dst []byte, from, to int64) {
	eb := int64(p.dbits / 8)
	if p.dbits%8 != 0 || to-from < 8 {
		for off := from; off < to; off++ {
			p.store(dst, off, p.fill)
		}
		return
	}
	if p.fill == 0 {
		clear(dst[from*eb : to*eb])
		return
	}
	p.k().Fill(dst[from*eb:to*eb], p.fillBytes)
}

// runRange runs outer iterations [lo, hi) of the loop nest.
func (p *Plan) runRange(dst, src []byte, lo, hi int64) {
	var ctr, e [maxDims]int64
	var dOff, sOff int64
	rem := lo
	for i := len(p.outer) - 1; i >= 0; i-- {
		l := &p.outer[i]
		ctr[i] = rem % l.size
		rem /= l.size
		if l.tab != nil {
			dOff += l.tab.dst[ctr[i]]
			sOff += l.tab.src[ctr[i]]
		} else {
			dOff += ctr[i] * l.dstStr
			sOff += ctr[i] * l.srcStr
		}
		e[l.dim] += ctr[i] * l.place
	}
	k := p.kern.base()
	var scratch []byte
	if k.scratch != nil {
		scratch = k.scratch.get()
		defer k.scratch.put(scratch)
	}
	var stage []byte
	if k.stage != nil {
		stage = k.stage.get()
		defer k.stage.put(stage)
	}
	var wide []byte
	pk, _ := p.kern.(*packingKernel)
	if pk != nil && pk.wide != nil && (wideShared || lo == 0 && hi == p.chunks) {
		wide = pk.wide.get()
		defer pk.wide.put(wide)
	}
	direct := pk != nil && pk.directUnpack()
	for it := lo; it < hi; it++ {
		if wide != nil {
			if g, last := p.wideReps(&ctr, &e, hi-it); g > 1 {
				p.unpackWide(pk, dst, src, wide, &ctr, &e, &dOff, &sOff, g, last)
				it += g - 1
				continue
			}
		}
		switch {
		case !p.interior(&e, k.maxBlock):
			p.block(dst, src, scratch, stage, dOff, sOff, e)
		case direct:
			pk.unpackRepeats(p, dst, src, dOff, sOff)
		default:
			p.repeats(dst, src, scratch, dOff, sOff, k.rep)
		}
		if p.ahead.piece > 0 { // edge blocks too: each block asks for its share of the next piece
			p.prefetchNext(src, sOff, &ctr)
		}
		step(p.outer, &ctr, &dOff, &sOff, &e)
	}
	if p.stream {
		p.k().Fence() // before the caller, or the goroutine waiting for this one, reads dst
	}
}

// step advances an odometer over loops (the last fastest): the counters, both offsets
// and the coordinates. It reports false when it wraps around to the start.
func step(loops []loop, ctr *[maxDims]int64, dOff, sOff *int64, e *[maxDims]int64) bool {
	for i := len(loops) - 1; i >= 0; i-- {
		l := &loops[i]
		if l.tab != nil {
			c := ctr[i]
			next := (c + 1) % l.size
			ctr[i] = next
			*dOff += l.tab.dst[next] - l.tab.dst[c]
			*sOff += l.tab.src[next] - l.tab.src[c]
			e[l.dim] += (next - c) * l.place
			if next != 0 {
				return true
			}
			continue
		}
		ctr[i]++
		*dOff += l.dstStr
		*sOff += l.srcStr
		e[l.dim] += l.place
		if ctr[i] < l.size {
			return true
		}
		ctr[i] = 0
		*dOff -= l.size * l.dstStr
		*sOff -= l.size * l.srcStr
		e[l.dim] -= l.size * l.place
	}
	return false
}

// interior reports whether a block at coordinates e reaching reach further holds data
// only, along every dim that can leave the data.
func (p *Plan) interior(e *[maxDims]int64, reach []int64) bool {
	for d, r := range p.ragged {
		if r && e[d]+reach[d] >= p.bounds[d].size {
			return false
		}
	}
	return true
}

// block runs a block that reaches past the data. Its leading repeats, while their reach
// along the repeats' dim stays in the data, all take the same path and run as one batch;
// the others go one at a time. (Small plans repeat their largest loop, often a ragged
// one, which one repeat at a time made slow.)
func (p *Plan) block(dst, src, scratch, stage []byte, dOff, sOff int64, e [maxDims]int64) {
	k := p.kern.base()
	for r := int64(0); r < k.rep; {
		n := int64(1)
		if r == 0 {
			n = max(p.dataReps(&e), 1)
		}
		p.edge(dst, src, scratch, stage, dOff, sOff, &e, n)
		r += n
		dOff += n * k.repDst
		sOff += n * k.repSrc
		e[k.repDim] += n * k.repPlace
	}
}

// dataReps counts the leading repeats of the block at e whose reach along the repeats'
// dim stays in the data.
func (p *Plan) dataReps(e *[maxDims]int64) int64 {
	k := p.kern.base()
	if k.rep == 1 || !p.ragged[k.repDim] {
		return k.rep
	}
	room := p.bounds[k.repDim].size - e[k.repDim] - k.maxInner[k.repDim] // repeat r fits if r*repPlace < room
	if room <= 0 {
		return 0
	}
	return min(k.rep, layout.CeilDiv(room, k.repPlace))
}

// kernel runs the inner kernel rows times, each a repeat further along, on elements
// that are all data; n is the run length of copy, interleave and deinterleave kernels
// (the kernel's own, or a clipped one). The simd kernels take the repeats as one batch.
func (p *Plan) kernel(dst, src, scratch []byte, dOff, sOff, n, rows int64) {
	p.kern.call(p, blockCall{dst, src, scratch, dOff, sOff, p.kern.base().repDst, n, rows, p.stream, 0})
}

// blockCall is one call of the kernel: rows repeats at dOff in dst and sOff in src,
// dstRep and the kernel's repSrc elements apart, runs of n elements, with streaming
// stores or not (see clipped, which stages runs with other repeats), asking for the
// source ahead bytes further as it is read or not (0; see planNextRows).
type blockCall struct {
	dst, src, scratch           []byte
	dOff, sOff, dstRep, n, rows int64
	stream                      bool
	ahead                       int64
}

// rowsOf is the simd batch of a call's repeats, k's repSrc apart in the source.
func (p *Plan) rowsOf(k *kernelBase, c *blockCall) simd.Rows {
	return simd.Rows{N: int(c.rows), DstStride: int(c.dstRep * int64(p.dbits/8)), SrcStride: int(k.repSrc * int64(p.sbits/8)), Hints: simd.Hints{Stream: c.stream, Ahead: int32(c.ahead)}}
}

// copyRuns runs a copy kernel's call: runs copied, converting or not.
func (p *Plan) copyRuns(k *copyKernel, c *blockCall) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	k.conv(c.dst[c.dOff*db:], c.src[c.sOff*sb:], int(c.n), p.rowsOf(&k.kernelBase, c))
}

// packRuns runs an interleave or deinterleave kernel's call: p rows into or out of
// p-element words.
func (p *Plan) packRuns(k *packingKernel, c *blockCall) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	var rows [4][]byte
	if k.interleave {
		for j := range k.p {
			rows[j] = c.src[(c.sOff+j*k.pstr)*sb:]
		}
		p.interleave(k, c.scratch, c.dst[c.dOff*db:], &rows, int(c.n), p.rowsOf(&k.kernelBase, c))
		return
	}
	for j := range k.p {
		rows[j] = c.dst[(c.dOff+j*k.pstr)*db:]
	}
	p.deinterleave(k, c.scratch, &rows, c.src[c.sOff*sb:], int(c.n), p.rowsOf(&k.kernelBase, c))
}

// transposeBlocks runs a transpose kernel's call: a block a repeat, or the repeats
// together where they fill tiles (see tileRepeats).
func (p *Plan) transposeBlocks(k *transposeKernel, c *blockCall) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	dst, src, dOff, sOff, dstRep, rows := c.dst, c.src, c.dOff, c.sOff, c.dstRep, c.rows
	if k.conv != nil {
		p.convTranspose(k, dst, src, c.scratch, dOff, sOff, rows)
		return
	}
	if n := p.tileRepeats(k, dst, dOff, dstRep, src[sOff*sb:], k.srcRow*sb, rows, c.stream); n > 0 {
		dOff, sOff, rows = dOff+n*dstRep, sOff+n*k.repSrc, rows-n
	}
	if k.fromTiles != nil && rows >= k.tileReps && dstRep == k.rows*k.unit {
		// The inverse: the repeats continue the destination rows, each from a tile.
		n := rows / k.tileReps * k.tileReps
		k.fromTiles(dst[dOff*db:], int(k.dstRow*db), src[sOff*sb:], int(k.srcRow*sb), int(k.repSrc*sb), int(k.rows), int(n*k.rows), int(k.cols), c.stream)
		dOff, sOff, rows = dOff+n*dstRep, sOff+n*k.repSrc, rows-n
	}
	trans := k.trans // whole lines on both sides, or too short for any: one call a block
	if p.splitLines(k, int(k.rows), int(k.cols)) {
		trans = func(dst []byte, ds int, src []byte, ss int, rows, cols int) {
			p.transLines(k, dst, ds, src, ss, rows, cols)
		}
	}
	for range rows {
		if k.blockAhead > 0 {
			p.prefetchBlock(k, src, sOff+k.repSrc)
		}
		trans(dst[dOff*db:], int(k.dstRow*db), src[sOff*sb:], int(k.srcRow*sb), int(k.rows), int(k.cols))
		dOff, sOff = dOff+dstRep, sOff+k.repSrc
	}
}

// elementwise runs an elementwise kernel's call, an element at a time.
func (p *Plan) elementwise(k *elemKernel, c *blockCall) {
	dOff, sOff := c.dOff, c.sOff
	for range c.rows {
		for i := int64(0); i < k.n; i++ {
			p.elem(c.dst, c.src, dOff+i*k.dstStr, sOff+i*k.srcStr)
		}
		dOff, sOff = dOff+c.dstRep, sOff+k.repSrc
	}
}

// tileRepeats runs the whole groups of tileReps among rows repeats of a transpose into
// tiles as single Transpose32Tiles calls (the repeats are the next columns of the same
// source rows, src's, srcRow bytes apart; each repeat is a destination group, dstRep
// elements apart) and returns how many repeats it ran; the rest go block by block.
func (p *Plan) tileRepeats(k *transposeKernel, dst []byte, dOff, dstRep int64, src []byte, srcRow, rows int64, stream bool) int64 {
	if k.tiles == nil || rows < k.tileReps {
		return 0
	}
	n, db := rows/k.tileReps*k.tileReps, int64(p.dbits/8)
	k.tiles(dst[dOff*db:], int(k.dstRow*db), int(dstRep*db), int(k.cols), src, int(srcRow), int(k.rows), int(n*k.cols), stream)
	return n
}

// packPartial runs an interleave kernel on rows repeats of n elements whose packed rows
// from valid on lie in the destination's padding: they read the fill row instead, in one
// batch when the fill row spans the batch's reach (see batchedRow).
func (p *Plan) packPartial(k *packingKernel, dst, src, scratch []byte, dOff, sOff, n, valid, rows int64) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	r, step := simd.Rows{N: int(rows), DstStride: int(k.repDst * db), SrcStride: int(k.repSrc * sb), Hints: simd.Hints{Stream: p.stream}}, rows
	if int64(len(k.fillRow)) < ((rows-1)*k.repSrc+n)*sb {
		r.N, step = 1, 1
	}
	for i := int64(0); i < rows; i += step {
		var in [4][]byte
		for j := range in[:k.p] {
			in[j] = k.fillRow
			if int64(j) < valid {
				in[j] = src[(sOff+i*k.repSrc+int64(j)*k.pstr)*sb:]
			}
		}
		p.interleave(k, scratch, dst[(dOff+i*k.repDst)*db:], &in, int(n), r)
	}
}

// unpackPartial runs a deinterleave kernel on rows repeats of n elements whose packed
// rows from valid on lie in the source's padding: their values go to discard, a worker's
// staging buffer, in one batch when it spans the batch's reach (see batchedRow).
func (p *Plan) unpackPartial(k *packingKernel, dst, src, scratch, discard []byte, dOff, sOff, n, valid, rows int64) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	r, step := simd.Rows{N: int(rows), DstStride: int(k.repDst * db), SrcStride: int(k.repSrc * sb), Hints: simd.Hints{Stream: p.stream}}, rows
	if int64(len(discard)) < ((rows-1)*k.repDst+n)*db {
		r.N, step = 1, 1
	}
	for i := int64(0); i < rows; i += step {
		var out [4][]byte
		for j := range out[:k.p] {
			out[j] = discard
			if int64(j) < valid {
				out[j] = dst[(dOff+i*k.repDst+int64(j)*k.pstr)*db:]
			}
		}
		p.deinterleave(k, scratch, &out, src[(sOff+i*k.repSrc)*sb:], int(n), r)
	}
}

// interleave packs k.p source rows into d, r.N times; deinterleave unpacks s into k.p
// destination rows. A pair of types without a fused kernel goes through scratch in
// pieces: convert the rows there and pack them, or unpack there and convert.
func (p *Plan) interleave(k *packingKernel, scratch, d []byte, rows *[4][]byte, n int, r simd.Rows) {
	if k.packConv == nil {
		k.packRows(d, rows, n, r)
		return
	}
	db, sb := p.dbits/8, p.sbits/8
	k.packPieces(scratch, n, r.N, db, func(j, c, cn, g, seg int) {
		var conv [4][]byte
		for q := range k.p {
			conv[q] = scratch[q*int64(seg):]
			k.packConv(conv[q], rows[q][j*r.SrcStride+c*sb:], cn, simd.Rows{N: g, DstStride: cn * db, SrcStride: r.SrcStride})
		}
		k.packRows(d[j*r.DstStride+c*int(k.p)*db:], &conv, cn, simd.Rows{N: g, DstStride: r.DstStride, SrcStride: cn * db, Hints: simd.Hints{Stream: r.Stream}})
	})
}

func (p *Plan) deinterleave(k *packingKernel, scratch []byte, rows *[4][]byte, s []byte, n int, r simd.Rows) {
	if k.packConv == nil {
		k.unpackRows(rows, s, n, r)
		return
	}
	db, sb := p.dbits/8, p.sbits/8
	k.packPieces(scratch, n, r.N, sb, func(j, c, cn, g, seg int) {
		var parts [4][]byte
		for q := range k.p {
			parts[q] = scratch[q*int64(seg):]
		}
		k.unpackRows(&parts, s[j*r.SrcStride+c*int(k.p)*sb:], cn, simd.Rows{N: g, DstStride: cn * sb, SrcStride: r.SrcStride})
		for q := range k.p {
			k.packConv(rows[q][j*r.DstStride+c*db:], parts[q], cn, simd.Rows{N: g, DstStride: r.DstStride, SrcStride: cn * sb, Hints: simd.Hints{Stream: r.Stream}})
		}
	})
}

// packPieces cuts n elements × reps repeats of k.p rows into pieces whose rows (w
// bytes an element) fit in scratch together: whole rows for g repeats at a time, or
// cn elements of one. It calls do with the first repeat j, the first element c, and
// the bytes of scratch each row has.
func (k *packingKernel) packPieces(scratch []byte, n, reps, w int, do func(j, c, cn, g, seg int)) {
	pk := int(k.p)
	seg := len(scratch) / pk
	m := min(n, seg/w)
	per := 1
	if m == n {
		per = max(1, seg/(n*w))
	}
	for j := 0; j < reps; j += per {
		g := min(per, reps-j)
		for c := 0; c < n; c += m {
			cn := min(m, n-c)
			do(j, c, cn, g, seg)
		}
	}
}

// directUnpack reports whether the plan's interior blocks may call the same-type
// unpacking kernel straight from the loop (unpackRepeats) rather than through repeats
// and packRuns, which make the same call: an unpacking without conversion, whose calls
// never ask ahead (see planNextRows). Bf16 tiles read back make a call per 2 KiB tile,
// and the work between the calls delays the next tile's loads (bench/design-notes.md).
func (k *packingKernel) directUnpack() bool {
	return !k.interleave && k.packConv == nil && k.nextRows == 0
}

// unpackRepeats runs an interior block of a directUnpack kernel: its rep repeats as one
// batch, as repeats would.
func (k *packingKernel) unpackRepeats(p *Plan, dst, src []byte, dOff, sOff int64) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	r := simd.Rows{N: int(k.rep), DstStride: int(k.repDst * db), SrcStride: int(k.repSrc * sb), Hints: simd.Hints{Stream: p.stream}}
	s := src[sOff*sb:]
	if k.quad != nil {
		k.quad(dst[dOff*db:], dst[(dOff+k.pstr)*db:], dst[(dOff+2*k.pstr)*db:], dst[(dOff+3*k.pstr)*db:], s, int(k.n), r)
		return
	}
	k.pair(dst[dOff*db:], dst[(dOff+k.pstr)*db:], s, int(k.n), r)
}

// packRows and unpackRows call the same-type packing kernel.
func (k *packingKernel) packRows(d []byte, rows *[4][]byte, n int, r simd.Rows) {
	if k.quad != nil {
		k.quad(d, rows[0], rows[1], rows[2], rows[3], n, r)
	} else {
		k.pair(d, rows[0], rows[1], n, r)
	}
}

func (k *packingKernel) unpackRows(rows *[4][]byte, s []byte, n int, r simd.Rows) {
	if k.quad != nil {
		k.quad(rows[0], rows[1], rows[2], rows[3], s, n, r)
	} else {
		k.pair(rows[0], rows[1], s, n, r)
	}
}

// runConv returns the contiguous converting kernel for the plan's types, if any:
// a copy between one type, simd's conversion, or the plan's converter.
func (p *Plan) runConv() func(dst, src []byte, n int, r simd.Rows) {
	if p.dt == p.st && p.dbits == p.sbits && p.dbits%8 == 0 {
		return p.copySame
	}
	if from, to, ok := p.kernTypes(); ok {
		if c := p.k().Convert(from, to); c != nil {
			return c
		}
	}
	if p.converter != nil {
		return p.convertRun
	}
	return nil
}

// kernTypes returns the simd keys of the plan's source and destination types: one
// type by its width, copied bit for bit; two types only where simd converts
// between them (f32, bf16, f16 and the f8 types at their own widths; bf16 and f16
// widen to f32 exactly as they are loaded, so f8 from them is rounded once).
func (p *Plan) kernTypes() (from, to simd.DType, ok bool) {
	if p.dt == p.st && p.dbits == p.sbits {
		w, ok := map[int]simd.DType{8: simd.Bits8, 16: simd.Bits16, 32: simd.Bits32}[p.dbits]
		return w, w, ok
	}
	from, ok1 := floatType(p.st, p.sbits)
	to, ok2 := floatType(p.dt, p.dbits)
	return from, to, ok1 && ok2
}

// floatType is simd's key of the float type t stored in its own width.
func floatType(t layout.DType, bits int) (simd.DType, bool) {
	switch {
	case t == layout.F32 && bits == 32:
		return simd.F32, true
	case t == layout.BF16 && bits == 16:
		return simd.BF16, true
	case t == layout.F16 && bits == 16:
		return simd.F16, true
	case t == layout.F8E4M3FN && bits == 8:
		return simd.F8E4M3FN, true
	case t == layout.F8E5M2 && bits == 8:
		return simd.F8E5M2, true
	}
	return 0, false
}

// copySame copies r.N runs of n elements of the plan's one type.
func (p *Plan) copySame(dst, src []byte, n int, r simd.Rows) {
	p.k().CopyRows(dst, src, n*p.dbits/8, r)
}

func (p *Plan) convertRun(dst, src []byte, n int, r simd.Rows) {
	for j := range r.N {
		p.converter.Convert(dst[j*r.DstStride:], src[j*r.SrcStride:], n)
	}
}

// Where a block or element lies: in the data, in destination padding, outside the
// destination (a slot the common decomposition has but the destination lacks), or, for a
// block, partly in the data.
const (
	inData = iota
	inPadding
	outside
	mixed
)

// edge runs rows repeats of the kernel, from the one at e, that lie alike with respect
// to the data: all in it (one batch), or, when the run can be clipped, its data prefix
// copied (one batch) and the rest padded; anything else goes element by element.
func (p *Plan) edge(dst, src, scratch, stage []byte, dOff, sOff int64, e *[maxDims]int64, rows int64) {
	k := p.kern.base()
	if p.interior(e, k.maxInner) {
		p.repeats(dst, src, scratch, dOff, sOff, rows)
		return
	}
	if t, ok := p.kern.(*transposeKernel); ok && t.tedge.ok {
		ee := *e
		for range rows {
			p.transEdgeBlock(t, dst, src, scratch, dOff, sOff, &ee)
			dOff += k.repDst
			sOff += k.repSrc
			ee[k.repDim] += k.repPlace
		}
		return
	}
	if k.clip && p.clipEdge(dst, src, scratch, stage, dOff, sOff, e, rows) {
		return
	}
	ee := *e
	for range rows {
		p.edgeElems(dst, src, dOff, sOff, &ee)
		dOff += k.repDst
		sOff += k.repSrc
		ee[k.repDim] += k.repPlace
	}
}

// clipEdge runs edge's rows repeats of a clipping kernel when they lie alike along the
// dims other than the clipped one (a packing's rows past the data may read the fill row,
// or unpack into stage): each run's data prefix, then padding. It reports false, having
// run nothing, when they do not.
func (p *Plan) clipEdge(dst, src, scratch, stage []byte, dOff, sOff int64, e *[maxDims]int64, rows int64) bool {
	k := p.kern.base()
	pk, _ := p.kern.(*packingKernel)
	state := inData              // along the dims other than the clipped one
	packed := packedRows(p.kern) // packings: the packed rows that are data
	for d, r := range p.ragged {
		if !r || d == k.clipDim {
			continue
		}
		switch b := p.bounds[d]; {
		case e[d] >= b.extent:
			state = max(state, outside)
		case e[d] >= b.size:
			state = max(state, inPadding)
		case e[d]+k.maxInner[d] < b.size:
		case pk != nil && d == pk.rowDim && (pk.fillRow != nil || !pk.interleave && stage != nil) && k.maxInner[d] == (pk.p-1)*pk.rowPlace:
			packed = layout.CeilDiv(b.size-e[d], pk.rowPlace) // the rest read the fill row
		default:
			return false
		}
	}
	switch {
	case state == outside:
		return true
	case k.clipOuter != nil:
		p.edgeSplit(dst, src, scratch, stage, dOff, sOff, e, rows, state)
		return true
	}
	b := p.bounds[k.clipDim]
	data := min(max(b.size-e[k.clipDim], 0), k.n)
	inDst := min(max(b.extent-e[k.clipDim], 0), k.n)
	if state == inPadding {
		data = 0
	}
	switch {
	case pk != nil && !pk.interleave:
		p.unpackEdge(pk, dst, src, scratch, stage, dOff, sOff, e, rows, data, inDst, packed)
	case pk != nil && data > 0 && packed < pk.p:
		p.packPartial(pk, dst, src, scratch, dOff, sOff, data, packed, rows)
		if p.opts.pad != padLeave {
			for i := range rows {
				o := dOff + i*k.repDst
				p.pad(dst, o+data*pk.p, o+inDst*pk.p)
			}
		}
	default:
		p.clipped(dst, src, scratch, stage, dOff, sOff, data, inDst, max(packedRows(p.kern), 1), rows)
	}
	return true
}

// unpackEdge is clipEdge for a deinterleave: rows repeats at e whose runs have data
// elements, in the packed rows that are data, and inDst in the destination.
func (p *Plan) unpackEdge(k *packingKernel, dst, src, scratch, stage []byte, dOff, sOff int64, e *[maxDims]int64, rows, data, inDst, packed int64) {
	switch {
	case data > 0 && packed < k.p:
		p.unpackPartial(k, dst, src, scratch, stage, dOff, sOff, data, packed, rows)
	case data > 0:
		p.kernel(dst, src, scratch, dOff, sOff, data, rows)
	}
	if p.opts.pad == padLeave {
		return
	}
	for i := range rows {
		o := dOff + i*k.repDst
		for j := range k.p { // each unpacked row has its own tail
			if e[k.rowDim]+j*k.rowPlace >= p.bounds[k.rowDim].extent {
				continue // the source's padding pairs it with a row the destination lacks
			}
			from := data
			if j >= packed { // a row past the data: all padding
				from = 0
			}
			p.pad(dst, o+j*k.pstr+from, o+j*k.pstr+inDst)
		}
	}
}

// edgeSplit is edge's clipped path for a run clipped at an inner loop: per value of
// the loops outside that loop, the data prefix of the rest of the run, then padding.
func (p *Plan) edgeSplit(dst, src, scratch, stage []byte, dOff, sOff int64, e *[maxDims]int64, rows int64, state int) {
	k := p.kern.base()
	b := p.bounds[k.clipDim]
	var ctr [maxDims]int64
	ee := *e
	for {
		base := ee[k.clipDim]
		data := min(layout.CeilDiv(max(b.size-base, 0), k.clipPlace), k.clipSize) // CeilDiv wants no negatives
		inDst := min(layout.CeilDiv(max(b.extent-base, 0), k.clipPlace), k.clipSize)
		if state == inPadding {
			data = 0
		}
		p.clipped(dst, src, scratch, stage, dOff, sOff, data*k.clipUnit, inDst*k.clipUnit, 1, rows)
		if !step(k.clipOuter, &ctr, &dOff, &sOff, &ee) {
			return
		}
	}
}

// clipped writes rows destination runs of inDst·w elements, a repeat apart from dOff:
// the kernel's first data elements (w destination elements each), then padding. With
// streaming stores, the runs are built in stage (in L1) and stored whole: padding
// written in place would read each of its lines from memory first, and the line shared
// by data and padding would be written twice.
func (p *Plan) clipped(dst, src, scratch, stage []byte, dOff, sOff, data, inDst, w, rows int64) {
	k := p.kern.base()
	run, db := inDst*w, int64(p.dbits/8)
	if stage == nil || data == inDst || p.opts.pad == padLeave || run*db*rows > int64(len(stage)) {
		if data > 0 {
			p.kernel(dst, src, scratch, dOff, sOff, data, rows)
		}
		if p.opts.pad != padLeave {
			for i := range rows {
				o := dOff + i*k.repDst
				p.pad(dst, o+data*w, o+run)
			}
		}
		return
	}
	if data > 0 {
		p.kern.call(p, blockCall{stage, src, scratch, 0, sOff, run, p.stagedRun(src, sOff, data, inDst, rows), rows, false, 0})
	}
	for i := range rows {
		p.pad(stage, i*run+data*w, (i+1)*run)
	}
	p.k().CopyRows(dst[dOff*db:], stage, int(run*db), simd.Rows{N: int(rows), DstStride: int(k.repDst * db), SrcStride: int(run * db), Hints: simd.Hints{Stream: true}})
}

// stagedRun is the run length clipped's kernel takes into stage: the whole run when the
// source it reads stays in src, so the kernel has no short tail for generic code row by
// row; what it reads past the data lands in stage where the padding overwrites it.
func (p *Plan) stagedRun(src []byte, sOff, data, inDst, rows int64) int64 {
	k := p.kern.base()
	end := sOff + (rows-1)*k.repSrc + inDst
	pk, _ := p.kern.(*packingKernel)
	if pk != nil && pk.interleave {
		end += (pk.p - 1) * pk.pstr
	}
	if p.kern.kind() != kCopy && p.kern.kind() != kInterleave || end*int64(p.sbits/8) > int64(len(src)) {
		return data
	}
	return inDst
}

// edgeElems walks the kernel's loops element by element, checking each coordinate.
func (p *Plan) edgeElems(dst, src []byte, dOff, sOff int64, e *[maxDims]int64) {
	var ctr [maxDims]int64
	ee := *e
	in := p.inner
	for {
		state := inData
		for d, r := range p.ragged {
			if !r {
				continue
			}
			b := p.bounds[d]
			if ee[d] >= b.extent {
				state = outside
				break
			}
			if ee[d] >= b.size {
				state = inPadding
			}
		}
		switch state {
		case inData:
			p.elem(dst, src, dOff, sOff)
		case inPadding:
			if p.opts.pad != padLeave {
				p.store(dst, dOff, p.fill)
			}
		}
		if !step(in, &ctr, &dOff, &sOff, &ee) {
			return
		}
	}
}

// runReference is the per-element path: each destination slot in [lo, hi) finds its
// logical index through the layouts' index math.
func (p *Plan) runReference(dst, src []byte, lo, hi int64) {
	var buf [maxDims]int64
	idx := buf[:p.dst.Rank()]
	for off := lo; off < hi; off++ {
		if p.dst.Index(off, idx) {
			p.elem(dst, src, off, p.src.Offset(idx))
		} else if p.opts.pad != padLeave {
			p.store(dst, off, p.fill)
		}
	}
}

// elem copies one element, converting it.
func (p *Plan) elem(dst, src []byte, dOff, sOff int64) {
	if p.dbits > 64 {
		n := int64(p.dbits / 8)
		copy(dst[dOff*n:(dOff+1)*n], src[sOff*n:(sOff+1)*n])
		return
	}
	v := buffer.LoadBits(src, sOff, p.sbits)
	if p.conv != nil {
		v = buffer.Widen(p.dt, p.dbits, p.conv(v))
	} else if p.dt == layout.Pred && p.dbits < p.sbits && v != 0 {
		v = 1 // any nonzero pred is true; narrower storage would keep its low bits
	}
	buffer.StoreBits(dst, dOff, p.dbits, v)
}

func (p *Plan) load(src []byte, off int64) uint64 { return buffer.LoadBits(src, off, p.sbits) }

// store writes bits v (already widened) to destination element off.
func (p *Plan) store(dst []byte, off int64, v uint64) {
	if p.dbits > 64 { // only padding reaches here: zero or the fill's low bits
		n := int64(p.dbits / 8)
		clear(dst[off*n : (off+1)*n])
		binary.LittleEndian.PutUint64(dst[off*n:], v)
		return
	}
	buffer.StoreBits(dst, off, p.dbits, v)
}

// convTranspose runs rows blocks of a converting transpose through scratch: it converts
// their source, compact, and transposes from there, or (not convFirst) transposes into
// scratch and converts from there. Blocks that continue each other's rows on the
// converted side (a transposed tile walked in that side's order) are converted together,
// as many as scratch holds: f32 → bf16 {0,1:T(8,128)(2,1)} has 8-element source rows
// per block.
func (p *Plan) convTranspose(k *transposeKernel, dst, src, scratch []byte, dOff, sOff, rows int64) {
	db, sb := int64(p.dbits/8), int64(p.sbits/8)
	trans := k.trans
	if p.splitLines(k, int(k.rows), int(k.cols)) {
		trans = func(dst []byte, ds int, src []byte, ss int, rows, cols int) {
			p.transLines(k, dst, ds, src, ss, rows, cols)
		}
	}
	if k.convFirst {
		n := k.cols * k.unit // elements of a block's source row
		per := int64(1)
		if k.repSrc == n {
			per = max(1, int64(len(scratch))/(k.rows*n*db))
		}
		for r := int64(0); r < rows; r += per {
			g := min(per, rows-r)
			w := g * n * db
			k.conv(scratch, src[sOff*sb:], int(g*n), simd.Rows{N: int(k.rows), DstStride: int(w), SrcStride: int(k.srcRow * sb)})
			for j := p.tileRepeats(k, dst, dOff, k.repDst, scratch, w, g, p.stream); j < g; j++ {
				trans(dst[(dOff+j*k.repDst)*db:], int(k.dstRow*db), scratch[j*n*db:], int(w), int(k.rows), int(k.cols))
			}
			dOff, sOff = dOff+g*k.repDst, sOff+g*k.repSrc
		}
		return
	}
	n := k.rows * k.unit // elements of a block's destination row
	per := int64(1)
	if k.repDst == n {
		per = max(1, (int64(len(scratch))/k.cols-64)/(n*sb))
	}
	for r := int64(0); r < rows; r += per {
		g := min(per, rows-r)
		w := g * n * sb
		if w%1024 == 0 && (w+64)*k.cols <= int64(len(scratch)) {
			// Scratch rows a power of two apart fall in a few L1 sets, and the blocks'
			// narrow writes evicted each other's lines before they were whole.
			w += 64
		}
		for j := range g {
			if k.blockAhead > 0 {
				p.prefetchBlock(k, src, sOff+(j+1)*k.repSrc)
			}
			trans(scratch[j*n*sb:], int(w), src[(sOff+j*k.repSrc)*sb:], int(k.srcRow*sb), int(k.rows), int(k.cols))
		}
		k.conv(dst[dOff*db:], scratch, int(g*n), simd.Rows{N: int(k.cols), DstStride: int(k.dstRow * db), SrcStride: int(w), Hints: simd.Hints{Stream: p.stream}})
		dOff, sOff = dOff+g*k.repDst, sOff+g*k.repSrc
	}
}

// prefetchBlock asks for the source block at off, when it lies in src.
func (p *Plan) prefetchBlock(k *transposeKernel, src []byte, off int64) {
	from := off * int64(p.sbits/8)
	if to := min(from+k.blockAhead, int64(len(src))); from < to {
		p.k().Prefetch(src[from:to])
	}
}

// scratchBytes is the size of a converting transpose's scratch: a block, or more
// (in L2) when narrow blocks can be converted several at a time.
const scratchBytes = 256 << 10
