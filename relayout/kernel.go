package relayout

import (
	"runtime"
	"slices"
	"unsafe"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

type kernelKind uint8

const (
	kCopy         kernelKind = iota // contiguous runs on both sides
	kInterleave                     // p source rows → one destination row of p-element words
	kDeinterleave                   // the inverse
	kTranspose                      // source-contiguous loop ≠ destination-contiguous loop
	kElem                           // strided element loop
)

func (k kernelKind) String() string {
	return [...]string{"copy", "interleave", "deinterleave", "transpose", "elementwise"}[k]
}

// kernel is the plan's innermost loop nest, run at each outer iteration: one type per
// kind (copyKernel, packingKernel, transposeKernel, elemKernel), each holding its own
// fields and sharing kernelBase. chooseKernel picks it for a layout pair.
type kernel interface {
	kind() kernelKind
	// base is the state every kind has: its run, repeats, clipping and reach.
	base() *kernelBase
	// bind picks the simd functions and the kind's loop state, once the plan's loops,
	// repeats and streaming are settled.
	bind(p *Plan)
	// call runs one call of the kernel (see blockCall) on elements that are all data,
	// or into a staging buffer.
	call(p *Plan, c blockCall)
}

// kernelBase is what every kernel kind has.
type kernelBase struct {
	n int64 // run length: copy, interleave, deinterleave, elementwise

	// clip: the run is the lowest n values of dim clipDim (e = base + i), so an edge block
	// can copy its data prefix and pad the rest instead of going element by element.
	clip    bool
	clipDim int
	// A copy run over several dims (T(8,128)(2,1) → T(16,128)(2,1): a tile's row pairs,
	// columns, pair halves) clips at the loop of clipDim instead: each value of the
	// loops outside it (clipOuter) is a run of clipSize values clipPlace apart along
	// clipDim, each value clipUnit elements (the loops inside it, all data at an edge
	// that is not theirs).
	clipOuter           []loop
	clipSize, clipPlace int64
	clipUnit            int64

	maxInner []int64 // per dim: the largest coordinate the kernel adds

	// A block is rep kernel calls, each rep* further along one outer loop.
	rep, repDst, repSrc, repPlace int64
	repDim                        int
	maxBlock                      []int64 // maxInner plus the repeats' reach

	// The buffers a worker takes for its range (nil: none needed): scratch for
	// converting transposes and packings (see makeScratch), stage for edge runs stored
	// whole (see makeStage).
	scratch, stage *freeList[[]byte]
}

func (b *kernelBase) base() *kernelBase { return b }

// copyKernel copies contiguous runs on both sides, converting or not.
type copyKernel struct {
	kernelBase
	// conv copies runs, converting or not; bound at plan time, as the other kinds' simd
	// functions are.
	conv func(dst, src []byte, n int, r simd.Rows)
}

// packingKernel is an interleave or deinterleave kernel: p rows of a run, pstr elements
// apart on the unpacked side, into or out of one row of p-element words.
type packingKernel struct {
	kernelBase
	interleave bool  // packs rows into words; else unpacks them
	p          int64 // rows packed per word (2 or 4)
	pstr       int64 // element stride between packed rows (source for interleave, destination for deinterleave)
	rowDim     int   // the packed rows' dim
	rowPlace   int64 // and their place in it
	// The simd functions, bound at plan time: pair is (dst, a, b) for interleave and
	// (a, b, src) for deinterleave, quad likewise with four rows.
	pair func(x, y, z []byte, n int, r simd.Rows)
	quad func(v, w, x, y, z []byte, n int, r simd.Rows)
	// packConv converts the rows of a packing whose types have no fused kernel (f16 →
	// bf16 (2,1)): pair and quad are then the converted side's same-type kernels.
	packConv  func(dst, src []byte, n int, r simd.Rows)
	nextRows  int64             // bytes from a call's source rows to the next call's, asked for ahead (see planNextRows)
	aheadFrom int64             // calls of more repeats than this ask ahead (fewReps)
	fillRow   []byte            // interleave: a source row that packs to the fill (see packFillRow)
	wide      *freeList[[]byte] // staging of consecutive pair-unpacked tiles (nil: none, see planWide)
}

// transposeKernel moves blocks between the destination-contiguous loop and the
// source-contiguous one: rows along the first, cols along the second, of units of
// `unit` elements that are contiguous on both sides.
type transposeKernel struct {
	kernelBase
	rows, cols     int64
	dstRow, srcRow int64 // element strides
	unit           int64
	// A converting transpose goes through scratch: it converts the source block and
	// transposes that when the destination's units are 1, 2 or 4 bytes (convFirst), else
	// transposes the source's units and converts the result (bf16 pairs to f32 pairs).
	conv      func(dst, src []byte, n int, r simd.Rows)
	convFirst bool
	permuted  bool      // permuteOrder blocked the outer loops (permute.go)
	tedge     transEdge // how edge blocks clip (transedge.go)
	trans     func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	// tiles, or fromTiles, runs tileReps repeats of a transpose at once (see planTiles).
	tiles      func(dst []byte, dstStride, groupStride, g int, src []byte, srcStride int, rows, cols int, stream bool)
	fromTiles  func(dst []byte, dstStride int, src []byte, srcStride, groupStride, g int, rows, cols int, stream bool)
	tileReps   int64
	blockAhead int64 // the bytes of a block's source, asked for a block ahead (see planBlockAhead)
}

// elemKernel moves n elements these strides apart, one at a time.
type elemKernel struct {
	kernelBase
	dstStr, srcStr int64
}

func (*copyKernel) kind() kernelKind      { return kCopy }
func (*transposeKernel) kind() kernelKind { return kTranspose }
func (*elemKernel) kind() kernelKind      { return kElem }
func (k *packingKernel) kind() kernelKind {
	if k.interleave {
		return kInterleave
	}
	return kDeinterleave
}

func (k *copyKernel) call(p *Plan, c blockCall)      { p.copyRuns(k, &c) }
func (k *packingKernel) call(p *Plan, c blockCall)   { p.packRuns(k, &c) }
func (k *transposeKernel) call(p *Plan, c blockCall) { p.transposeBlocks(k, &c) }
func (k *elemKernel) call(p *Plan, c blockCall)      { p.elementwise(k, &c) }

// packedRows is the rows a packing kernel packs per word, else 0.
func packedRows(k kernel) int64 {
	if pk, ok := k.(*packingKernel); ok {
		return pk.p
	}
	return 0
}

// compile finds the fast path: the common loops, the inner kernel and the outer loops.
func (p *Plan) compile() {
	di := p.dst
	if p.bitcast {
		di = p.src // same offsets, no padding: the loops of the identical-layout copy
	}
	loops, tables, bounds, irregular, ok := commonLoops(planIndexer(di), planIndexer(p.src))
	if !ok || len(bounds) > maxDims {
		return
	}
	// Table loops visit data only: padding, if the destination has any, is written first.
	p.exec, p.bounds, p.prefill = &loopNest{p, p.runRange}, bounds, irregular && p.dst.ExpandedElements() > p.dst.LogicalElements()
	want := p.unitsWanted()
	k, inner, loops := p.chooseKernel(loops, want)
	for i, l := range loops {
		if slices.Contains(inner, i) {
			p.inner = append(p.inner, l)
		} else {
			p.outer = append(p.outer, l)
		}
	}
	slices.SortStableFunc(p.inner, func(a, b loop) int { return cmpInt(b.dstStr, a.dstStr) })
	bySrc := p.orderOuter(k)
	p.groupStreams(k, bySrc)
	if t, ok := k.(*transposeKernel); ok {
		t.permuted = p.permuteOrder(t)
	}
	p.reach(k.base(), append(loops, tables...), bounds)
	switch k := k.(type) {
	case *copyKernel:
		k.clip, k.clipDim = p.runIsLowest(k)
		if !k.clip {
			p.splitClip(&k.kernelBase)
		}
	case *packingKernel:
		k.clip, k.clipDim = p.runIsLowest(k)
		k.clip = k.clip && k.rowDim != k.clipDim
	case *transposeKernel:
		p.clipTranspose(k)
	}
	p.cacheOrder()
	p.batchOrder(k)
	p.outer = append(tables, p.outer...) // they have no strides: outermost, never a repeat
	p.foldRepeat(k, want)
	// Non-temporal stores save the read of each destination line when the arrays do
	// not fit in the cache (see streams). The batched kernels leave the SFENCE to the
	// end of the range (a fence per run costs more than the stores save), and so do the
	// short transpose blocks of permuted plans; other transposes fence once per block
	// (bench/design-notes.md).
	p.stream, p.readAhead = k.kind() != kElem && p.opts.storesOr(p.streams(k)), p.readsAhead()
	p.settle(k)
	p.kern = k
	p.chunks = 1
	for _, l := range p.outer {
		p.chunks *= l.size
	}
}

// chooseKernel picks the kernel for a layout pair from its common loops (innermost
// last), and returns it with the indices of its own loops among the loops it returns
// (a transpose splits the loops it blocks):
//   - sub-byte elements go element by element;
//   - loops contiguous on both sides copy runs (runKernel);
//   - the destination's fastest loop packing rows of the source, or the inverse, packs
//     or unpacks them (packing);
//   - the two sides' contiguous loops differing, a block transpose (transpose);
//   - anything else goes element by element along the innermost loop.
func (p *Plan) chooseKernel(loops []loop, want int64) (kernel, []int, []loop) {
	n := len(loops)
	last := n - 1
	sub := p.dbits%8 != 0 || p.sbits%8 != 0
	switch {
	case sub && n == 0:
		return &elemKernel{kernelBase: kernelBase{n: 1}}, nil, loops
	case sub:
		return elementwiseKernel(loops)
	case n == 0:
		return &copyKernel{kernelBase: kernelBase{n: 1}, conv: p.runConv()}, nil, loops
	case loops[last].dstStr == 1 && loops[last].srcStr == 1 && p.runConv() != nil:
		return p.runKernel(loops, want)
	}
	if k, in, ok := p.packing(loops); ok {
		return k, in, loops
	}
	if k, in, split, ok := p.transpose(loops); ok {
		return k, in, split
	}
	return elementwiseKernel(loops)
}

// elementwiseKernel walks the innermost loop element by element.
func elementwiseKernel(loops []loop) (kernel, []int, []loop) {
	l := loops[len(loops)-1]
	return &elemKernel{kernelBase: kernelBase{n: l.size}, dstStr: l.dstStr, srcStr: l.srcStr}, []int{len(loops) - 1}, loops
}

// runKernel is the kernel for loops whose innermost is contiguous on both sides: a copy
// of runs as long as the loops from there stay contiguous, cut for the workers (see
// splitRun). Runs of a word or less are better moved as the units of a transpose, when
// the loops around them are one: bf16 {1,0} → {0,1:T(8,128)(2,1)} pairs columns that
// are adjacent in the source, so it is a 32-bit transpose.
func (p *Plan) runKernel(loops []loop, want int64) (kernel, []int, []loop) {
	last := len(loops) - 1
	run := loops[last].size
	inner := []int{last}
	for i := last - 1; i >= 0 && loops[i].dstStr == run && loops[i].srcStr == run; i-- {
		run *= loops[i].size
		inner = append(inner, i)
	}
	if run*int64(min(p.dbits, p.sbits)/8) <= 4 {
		if t, in, split, ok := p.transpose(loops); ok {
			return t, in, split
		}
	}
	loops, inner = p.splitRun(loops, inner, want)
	k := &copyKernel{kernelBase: kernelBase{n: 1}, conv: p.runConv()}
	for _, i := range inner {
		k.n *= loops[i].size
	}
	return k, inner, loops
}

// reach does the bounds bookkeeping of a kernel over all (the plan's loops, table
// loops included) within bounds: how far the kernel reaches along each dim, and which
// dims can leave the data.
func (p *Plan) reach(k *kernelBase, all []loop, bounds []bound) {
	k.maxInner = make([]int64, len(bounds))
	covered := make([]int64, len(bounds))
	for _, l := range p.inner {
		k.maxInner[l.dim] += (l.size - 1) * l.place
	}
	for _, l := range all {
		covered[l.dim] += (l.size - 1) * l.place
	}
	p.ragged = make([]bool, len(bounds))
	for d, b := range bounds {
		p.ragged[d] = covered[d]+1 > b.size
	}
}

// foldRepeat folds the innermost outer loop into each kernel call as a repeat, so the
// odometer and the edge checks run once per batch of runs: 256² bf16 → T(8,128)(2,1)
// makes 256 calls of 128 elements, where that bookkeeping cost as much as the copying.
func (p *Plan) foldRepeat(kern kernel, want int64) {
	k := kern.base()
	k.rep = 1
	if n := len(p.outer); n >= 2 && p.outer[n-1].tab == nil {
		l := p.outer[n-1]
		p.outer = p.outer[:n-1]
		k.rep, k.repDst, k.repSrc, k.repDim, k.repPlace = l.size, l.dstStr, l.srcStr, l.dim, l.place
	}
	p.splitRepeats(kern, want)
	k.maxBlock = slices.Clone(k.maxInner)
	if k.rep > 1 {
		k.maxBlock[k.repDim] += (k.rep - 1) * k.repPlace
	}
}

// packFillRow returns, for an interleave kernel whose packed rows can be cut by the end
// of the data (T(32,128)(4,1) on 250 rows: rows 248–249 of a quad are data, 250–251
// padding), a source row that packs to the padding value, so that such a quad is one
// kernel call rather than an element-by-element walk. It is nil when no such row exists:
// padding left alone, or a converting kernel with a non-zero fill (whose source value
// would have to round to it).
func (p *Plan) packFillRow(k *packingKernel) []byte {
	if !k.interleave || !p.ragged[k.rowDim] || p.opts.pad == padLeave || p.dt != p.st && p.fill != 0 {
		return nil
	}
	row := make([]byte, batchedRow(k.n, k.rep, k.repSrc)*int64(p.sbits/8))
	if p.fill != 0 {
		for i := 0; i < len(row); i += len(p.fillBytes) {
			copy(row[i:], p.fillBytes)
		}
	}
	return row
}

// settle makes the choices that depend on whether the plan streams: the simd functions,
// the source prefetch and the staging buffers.
func (p *Plan) settle(k kernel) {
	p.ahead = p.planAhead(k)
	k.bind(p)
	p.makeStage(k)
}

func (*copyKernel) bind(*Plan) {}
func (*elemKernel) bind(*Plan) {}

// bind picks the simd functions for the plan's types, and the packing's loop state.
func (k *packingKernel) bind(p *Plan) {
	if k.pair, k.quad = p.packKernel(k.p, k.interleave, true); k.pair == nil && k.quad == nil {
		k.packConv = p.runConv()
		k.scratch = p.makeScratch(0)
		k.pair, k.quad = p.packKernel(k.p, k.interleave, false)
	}
	k.aheadFrom = k.fewReps(p)
	k.nextRows = p.planNextRows(k)
	k.wide = p.planWide(k)
	k.fillRow = p.packFillRow(k)
}

// bind picks the simd functions for the plan's types, and the transpose's loop state.
func (k *transposeKernel) bind(p *Plan) {
	ub, toScratch := k.unit*int64(p.dbits/8), false
	if p.dt != p.st || p.dbits != p.sbits {
		k.conv = p.runConv()
		k.scratch = p.makeScratch(k.rows * k.cols * k.unit)
		if !k.convFirst {
			ub, toScratch = k.unit*int64(p.sbits/8), true
		}
	} else if (p.stagesRows(k) || p.stagesOddRows(k)) && !p.readsTiles(k, ub) {
		k.conv, k.convFirst, toScratch = p.runConv(), false, true
		k.scratch = p.makeScratch(k.rows * k.cols * k.unit)
	}
	stores := simd.Ordinary
	switch {
	case p.stream && !toScratch && k.permuted:
		// Many short blocks: the fence comes once, at the end of runRange's range.
		stores = simd.Streaming
	case p.stream && !toScratch:
		stores = simd.NonTemporal
	}
	k.trans = p.k().Transpose(int(ub), stores)
	if k.conv == nil || k.convFirst {
		p.planTiles(k, ub)
	}
	k.blockAhead = p.planBlockAhead(k)
}

// streams reports whether the plan stores non-temporally: from streamingBytes of source
// and destination together; and for same-type transposes from transposeStreamingBytes,
// whose blocks store a line to each of many destination rows a power of two apart:
// stored in the cache, those lines evict each other before they are written whole. Not
// the transposes into tiles of 4 or 8 rows, whose lines go 4 or 8 rows to a tile and
// stay in the cache until whole. The choice changes speed only, never the bytes written;
// bench/design-notes.md has what each threshold measured.
func (p *Plan) streams(kern kernel) bool {
	b := p.dst.FootprintBytes()
	switch {
	case kern.kind() == kElem:
		return false
	case b+p.src.FootprintBytes() >= streamingBytes():
		return true
	}
	k, ok := kern.(*transposeKernel)
	if !ok {
		return false
	}
	ub := k.unit * int64(p.dbits/8)
	// Tiles of two word rows (s8 {0,1:T(8,128)(4,1)}) take 16 rows a block, each in a
	// different tile a power of two apart, as plain transposes do, so they stream as
	// plain transposes do (bench/design-notes.md).
	plain := p.dt == p.st && p.dbits == p.sbits && (!p.writesTiles(k, ub) || k.cols == 2)
	// Reading tiles back stores whole lines into 4 or 8 rows at a time: only rows a page
	// apart fall in one L1 set, so only those stream (bench/design-notes.md).
	if p.stagesRows(k) && (!p.readsTiles(k, ub) || k.dstRow*int64(p.dbits/8)%4096 != 0) {
		plain = false
	}
	return plain && b >= transposeStreamingBytes()
}

// planTiles sets k.tiles for a transpose of 32-bit units (same-type, or converted
// first) whose blocks are an eighth, a quarter or half of a source line wide, and whose
// repeats are the next blocks of the same source rows, each into its own destination
// tile ({1,0} → {0,1:T(8,128)} and its (2,1) and (4,1) packed forms; an eighth is the
// two word rows of s8 {0,1:T(8,128)(4,1)}): 16/cols repeats at once make a 16-unit-wide
// transpose whose loads are whole lines and whose destination rows, 2, 4 or 8 to a
// tile, are whole lines too, where one block at a time loaded part lines and stored
// 16-byte pieces. Only where the simd set has such kernels: elsewhere
// reading tiles back unstaged lost (bench/design-notes.md).
//
// The inverse, reading such tiles back into rows ({0,1:T(8,128)} → {1,0}), sets
// k.fromTiles (see readsTiles).
func (p *Plan) planTiles(k *transposeKernel, ub int64) {
	switch {
	case p.readsTiles(k, ub) && k.conv == nil:
		k.fromTiles, k.tileReps = p.k().Transpose32FromTiles, 16/k.rows
	case p.writesTiles(k, ub):
		k.tiles, k.tileReps = p.k().Transpose32Tiles, 16/k.cols
	}
}

// writesTiles reports whether a transpose of ub-byte units writes tiles as planTiles
// says: blocks an eighth, a quarter or half of a source line wide whose repeats continue the
// source rows, each into its own destination tile.
func (p *Plan) writesTiles(k *transposeKernel, ub int64) bool {
	return ub == 4 && (k.cols == 2 || k.cols == 4 || k.cols == 8) && k.rows%16 == 0 && k.repSrc == k.cols*k.unit && k.rep >= 16/k.cols && p.k().TileKernels(int(k.cols))
}

// readsTiles reports whether a same-type transpose of 32-bit units reads tiles back as
// planTiles says: blocks an eighth, a quarter or half of a destination line wide whose repeats
// continue the destination rows, each from its own source tile. Their destination
// rows are then whole lines, so they need no staging (stagesRows).
func (p *Plan) readsTiles(k *transposeKernel, ub int64) bool {
	return ub == 4 && p.dt == p.st && p.dbits == p.sbits && (k.rows == 2 || k.rows == 4 || k.rows == 8) && k.cols%16 == 0 && k.repDst == k.rows*k.unit && k.rep >= 16/k.rows && p.k().TileKernels(int(k.rows))
}

// stagesRows reports whether a same-type transpose's blocks write destination rows
// shorter than a line (untiling {0,1:T(8,128)}: 8 f32 a row), which consecutive blocks
// continue. Unless the tile kernels read them (readsTiles), such transposes go through
// scratch like converting ones (see convTranspose): stored in place, every line of the
// destination was written in pieces, to rows a power of two apart that share a few L1
// sets; built in scratch, the rows go out in runs of many blocks, streamed or not
// (bench/design-notes.md).
func (p *Plan) stagesRows(k *transposeKernel) bool {
	return k.rows*k.unit*int64(p.dbits/8) < 64 && k.repDst == k.rows*k.unit && k.rep > 1
}

// stagesOddRows reports whether a streaming same-type transpose writes destination
// rows that are not whole lines apart, in runs that consecutive blocks continue (the
// 4-D permutations of odd dims: 63 f32 a block row, 13 blocks a run). The transpose
// kernels stream only into rows whole lines apart, so these were stored ordinarily,
// each line read before it was written; built in scratch, the rows stream out through
// the copy kernel's per-row edges (bench/design-notes.md).
func (p *Plan) stagesOddRows(k *transposeKernel) bool {
	return p.stream && k.dstRow*int64(p.dbits/8)%64 != 0 && k.repDst == k.rows*k.unit && k.rep > 1
}

// makeScratch makes one scratch block per worker now, so that Copy does not allocate;
// more concurrent copies than that make their own. A block holds one transpose block
// of block elements, or more (in L2) when narrow blocks can be converted several at a time.
func (p *Plan) makeScratch(block int64) *freeList[[]byte] {
	n := max(scratchBytes, block*int64(max(p.dbits, p.sbits)/8))
	return newFreeList(max(p.opts.workers, runtime.GOMAXPROCS(0)), p.opts.workers, func() []byte { return make([]byte, n) })
}

// stageMax bounds the staging buffer of a worker: the edge runs of one batch.
const stageMax = 64 << 10

// makeStage makes one staging buffer per worker for plans that stream and clip copy or
// interleave runs at their edges (see clipped), when one batch's runs fit in stageMax,
// and for deinterleave plans whose packed rows can run past the data.
func (p *Plan) makeStage(kern kernel) {
	k := kern.base()
	if pk, ok := kern.(*packingKernel); ok && !pk.interleave && k.clip && p.ragged[pk.rowDim] {
		// Rows past the data of a pair or quad unpack into it (see unpackPartial).
		n := batchedRow(k.n, k.rep, k.repDst) * int64(p.dbits/8)
		k.stage = newFreeList(max(p.opts.workers, runtime.GOMAXPROCS(0)), p.opts.workers, func() []byte { return lineAligned(n) })
		return
	}
	if !p.stream || !k.clip || kern.kind() != kCopy && kern.kind() != kInterleave {
		return
	}
	run := k.n * max(packedRows(kern), 1)
	if k.clipOuter != nil {
		run = k.clipSize * k.clipUnit
	}
	n := k.rep * run * int64(p.dbits/8)
	if n > stageMax {
		return
	}
	k.stage = newFreeList(max(p.opts.workers, runtime.GOMAXPROCS(0)), p.opts.workers, func() []byte { return lineAligned(n) })
}

// batchedRow is the elements of a row that stands for a packed row past the data in a
// batch of rep repeats, stride apart (see packPartial): the whole reach of the batch,
// when that stays under stageMax bytes of 8-byte elements, else one run.
func batchedRow(n, rep, stride int64) int64 {
	if all := (rep-1)*stride + n; all*8 <= stageMax {
		return all
	}
	return n
}

// lineAligned returns n bytes starting on a 64-byte boundary, so that the streaming
// kernels that read or write them keep their non-temporal stores.
func lineAligned(n int64) []byte {
	b := make([]byte, n+63)
	off := int64(-uintptr(unsafe.Pointer(&b[0])) & 63)
	return b[off : off+n : off+n]
}

// orderOuter walks the outer loops in destination order (sequential writes) or source
// order, whichever leaves fewer concurrent streams on the other side: the innermost
// outer loop's size. Untiling T(8,128) in destination order reads 64 tiles a page apart
// in turn; in source order it writes 8 rows (so does deinterleave), while tiling wants
// destination order for the same reason.
//
// A transpose whose source rows are narrower than a line (4 units of T(8,128)(2,1)
// transposed) walks in source order when that continues its rows: the next block reads
// the rest of the lines the last one loaded. One whose destination rows are that narrow
// stays in destination order if that continues them (reading such a tiling back).
func (p *Plan) orderOuter(k kernel) (bySrc bool) {
	n := len(p.outer)
	if n < 2 {
		return false
	}
	src := slices.Clone(p.outer)
	slices.SortStableFunc(src, func(a, b loop) int { return cmpInt(b.srcStr, a.srcStr) })
	t, ok := k.(*transposeKernel)
	narrowSrc := ok && t.cols*t.unit*int64(p.sbits/8) < 64 && src[n-1].srcStr == t.cols*t.unit
	narrowDst := ok && t.rows*t.unit*int64(p.dbits/8) < 64 && p.outer[n-1].dstStr == t.rows*t.unit
	if narrowSrc || !narrowDst && src[n-1].size < p.outer[n-1].size {
		p.outer = src
		return true
	}
	return false
}

// cacheOrder moves the largest outer loop innermost when both arrays fit in the L2
// cache, where the number of streams does not matter: it becomes the kernel's repeat,
// and the longer the batch, the less each run costs. 256² bf16 → T(8,128)(2,1) then
// batches 32 tile rows instead of 2 tile columns.
func (p *Plan) cacheOrder() {
	if p.src.FootprintBytes()+p.dst.FootprintBytes() > int64(defaultBlockBytes()) || len(p.outer) < 2 {
		return
	}
	big := 0
	for i, l := range p.outer {
		if l.size > p.outer[big].size {
			big = i
		}
	}
	l := p.outer[big]
	p.outer = append(slices.Delete(p.outer, big, big+1), l)
}

// batchGroup bounds the data of the two innermost outer loops' blocks, both sides, for
// batchOrder: a small part of L2, so that their order does not matter to the memory.
const batchGroup = 128 << 10

// batchOrder puts the larger of the two innermost outer loops innermost, where it
// becomes the kernel's batch, when their blocks together stay within batchGroup. Narrow
// arrays need it: f32[N,200] → T(8,128) has two tile columns, and batching those made
// calls of two runs, the second an edge; batching a tile's 8 rows makes calls of 8, and
// the edge column's calls clip 8 runs at once. bf16[N,3,M] in T(4,128)(2,1) batches a
// row of tiles rather than a tile's two row pairs.
func (p *Plan) batchOrder(k kernel) {
	n := len(p.outer)
	if n < 2 || k.kind() == kTranspose || k.kind() == kElem {
		return
	}
	a, b := p.outer[n-2], p.outer[n-1]
	if a.tab != nil || b.tab != nil || a.size <= b.size {
		return
	}
	block := k.base().n * max(packedRows(k), 1) * int64(p.sbits/8+p.dbits/8)
	if block*a.size*b.size > batchGroup {
		return
	}
	p.outer[n-2], p.outer[n-1] = b, a
}

// groupStreams keeps the strided side's streams long enough for the prefetchers. One
// pass of the innermost outer loop visits size×p streams there (rows of the side not
// walked in order), each for one kernel run. When the next loop out continues every
// stream where the run ended, it is split so that its inner part, moved innermost,
// lengthens each visit. Where the streams are source rows (tiling), the whole loop moves
// in: each pass reads its rows from end to end and scatters the runs over a row of
// tiles, as f32 → T(8,128) reads 8 rows 512 bytes at a time otherwise. Where they are
// destination rows (untiling, walked in source order), only the passes with more than
// 16 streams are grouped, to 1 KiB per visit: whole rows lost there
// (bench/design-notes.md).
func (p *Plan) groupStreams(k kernel, bySrc bool) {
	n := len(p.outer)
	if n < 2 || k.kind() == kTranspose || k.kind() == kElem {
		return
	}
	streams := p.outer[n-1].size * max(packedRows(k), 1)
	run := k.base().n
	next := p.outer[n-2]
	stride, width := next.srcStr, int64(p.sbits/8) // the side not walked in order
	if bySrc {
		stride, width = next.dstStr, int64(p.dbits/8)
	}
	if streams <= 1 || stride != run || bySrc && streams <= 16 {
		return
	}
	g := next.size
	if bySrc {
		g = 1
		for g*run*width < 1024 && next.size%(2*g) == 0 {
			g *= 2
		}
	}
	if g == 1 {
		return
	}
	in := loop{size: g, dstStr: next.dstStr, srcStr: next.srcStr, dim: next.dim, place: next.place}
	out := loop{size: next.size / g, dstStr: next.dstStr * g, srcStr: next.srcStr * g, dim: next.dim, place: next.place * g}
	p.outer = append(p.outer[:n-2:n-2], out, p.outer[n-1], in)
	if out.size == 1 {
		p.outer = slices.Delete(p.outer, n-2, n-1)
	}
}

// runIsLowest reports whether the kernel's run loops are the lowest places of one dim,
// consecutive, so that run element i has coordinate base+i.
func (p *Plan) runIsLowest(k kernel) (bool, int) {
	run := p.inner
	if pk, ok := k.(*packingKernel); ok && pk.interleave {
		run = run[:len(run)-1] // the last inner loop is the packed rows
	} else if ok {
		run = slices.DeleteFunc(slices.Clone(run), func(l loop) bool { return l.dim == pk.rowDim && l.place == pk.rowPlace && l.size == pk.p })
	}
	if len(run) == 0 {
		return false, 0
	}
	dim := run[0].dim
	place := int64(1)
	for i := len(run) - 1; i >= 0; i-- {
		if run[i].dim != dim || run[i].place != place {
			return false, 0
		}
		place *= run[i].size
	}
	return true, dim
}

// splitClip sets a copy kernel's run to clip at its outermost loop along a dim that the
// loops inside it do not touch, when that dim can leave the data (see kernel.clipOuter).
func (p *Plan) splitClip(k *kernelBase) {
	for c, l := range p.inner { // outermost first
		if !p.ragged[l.dim] || slices.ContainsFunc(p.inner[c+1:], func(i loop) bool { return i.dim == l.dim }) {
			continue
		}
		k.clip, k.clipDim = true, l.dim
		k.clipOuter = p.inner[:c:c]
		k.clipSize, k.clipPlace, k.clipUnit = l.size, l.place, l.dstStr
		return
	}
}

// packing finds pair/quad packing: the destination's fastest loop is p rows of the
// source (interleave), or the source's fastest is p rows of the destination (deinterleave).
func (p *Plan) packing(loops []loop) (*packingKernel, []int, bool) {
	n := len(loops)
	last := n - 1
	if n < 2 || loops[last].dstStr != 1 {
		return nil, nil, false
	}
	rows := loops[last]
	if rows.size == 2 || rows.size == 4 {
		pk := rows.size
		if loops[last-1].dstStr == pk && loops[last-1].srcStr == 1 && p.packable(pk, true) {
			run := loops[last-1].size
			inner := []int{last, last - 1}
			for i := last - 2; i >= 0 && loops[i].dstStr == pk*run && loops[i].srcStr == run; i-- {
				run *= loops[i].size
				inner = append(inner, i)
			}
			return &packingKernel{kernelBase: kernelBase{n: run}, interleave: true, p: pk, pstr: rows.srcStr, rowDim: rows.dim, rowPlace: rows.place}, inner, true
		}
	}
	// Deinterleave: the source-contiguous loop has p values and destination stride pstr.
	pk := loops[last].srcStr
	if pk != 2 && pk != 4 || !p.packable(pk, false) {
		return nil, nil, false
	}
	for c := range loops {
		if loops[c].srcStr != 1 || loops[c].size != pk {
			continue
		}
		run := loops[last].size
		inner := []int{c, last}
		for i := last - 1; i >= 0 && i != c && loops[i].dstStr == run && loops[i].srcStr == pk*run; i-- {
			run *= loops[i].size
			inner = append(inner, i)
		}
		return &packingKernel{kernelBase: kernelBase{n: run}, p: pk, pstr: loops[c].dstStr, rowDim: loops[c].dim, rowPlace: loops[c].place}, inner, true
	}
	return nil, nil, false
}

// packable says whether a packing kernel exists for the plan's types: a fused one, or
// the packed side's same-type one (16-bit pairs, byte quads) with the rows converted
// through scratch.
func (p *Plan) packable(pk int64, interleave bool) bool {
	packed := p.dbits
	if !interleave {
		packed = p.sbits
	}
	return p.fusedPack(pk, interleave) || int64(packed)*pk == 32 && p.runConv() != nil
}

// fusedPack says whether one simd kernel packs (or unpacks) and converts the types.
func (p *Plan) fusedPack(pk int64, interleave bool) bool {
	pair, quad := p.packKernel(pk, interleave, true)
	return pair != nil || quad != nil
}

// packKernel returns the simd kernel that packs (interleave) or unpacks pk rows
// (pair for 2, quad for 4): with conv, of the plan's types, converted in the same
// pass, or nil where simd has none (f8 quads unpacked into bf16 or f16 only where
// the kernel set has vector kernels for them: elsewhere the quads are unpacked and
// then converted); without, of the packed width, bit for bit.
func (p *Plan) packKernel(pk int64, interleave, conv bool) (pair func(x, y, z []byte, n int, r simd.Rows), quad func(v, w, x, y, z []byte, n int, r simd.Rows)) {
	ks := p.k()
	raw := map[int64]simd.DType{2: simd.Bits16, 4: simd.Bits8}[pk]
	from, to, ok := raw, raw, true
	if conv {
		from, to, ok = p.kernTypes()
	}
	switch {
	case !ok:
	case pk == 4 && interleave:
		quad = ks.Pack4(from, to)
	case pk == 4 && (to.Bytes() != 2 || from == to || ks.F8QuadsTo16Kernel):
		quad = ks.Unpack4(from, to)
	case pk == 2 && interleave:
		pair = ks.Pack2(from, to)
	case pk == 2:
		pair = ks.Unpack2(from, to)
	}
	return pair, quad
}

// transpose finds a block transpose between the destination-contiguous loop and the
// source-contiguous one, splitting both into cache-sized blocks. Its elements are units
// of the innermost loops that are contiguous on both sides (one element when there are
// none), moved whole when they are 1, 2 or 4 bytes.
func (p *Plan) transpose(loops []loop) (*transposeKernel, []int, []loop, bool) {
	same := p.dt == p.st && p.dbits == p.sbits
	if p.dbits%8 != 0 || p.sbits%8 != 0 || !same && p.runConv() == nil {
		return nil, nil, nil, false
	}
	unit, yi := int64(1), len(loops)-1
	for ; yi >= 0 && loops[yi].dstStr == unit && loops[yi].srcStr == unit; yi-- {
		unit *= loops[yi].size
	}
	word := func(b int64) bool { return b == 1 || b == 2 || b == 4 }
	ub, convFirst := unit*int64(p.dbits/8), !same
	if !word(ub) && !same {
		ub, convFirst = unit*int64(p.sbits/8), false
	}
	if !word(ub) || yi < 0 || loops[yi].dstStr != unit {
		return nil, nil, nil, false
	}
	xi := -1
	for i, l := range loops[:yi] {
		if l.srcStr == unit {
			xi = i
		}
	}
	if xi < 0 {
		return nil, nil, nil, false
	}
	blk := int64(8)
	for blk*blk*ub*4 <= int64(p.opts.blockBytes) {
		blk *= 2
	}
	out := append([]loop(nil), loops...)
	x, y := p.splitLoop(out[xi], blk), p.splitLoop(out[yi], blk)
	out[xi], out[yi] = x[0], y[0]
	out = append(out, x[1:]...)
	out = append(out, y[1:]...)
	slices.SortStableFunc(out, func(a, b loop) int { return cmpInt(b.dstStr, a.dstStr) })
	units := loops[yi+1:]
	var inner []int
	for i, l := range out {
		if l == x[0] || l == y[0] || slices.Contains(units, l) {
			inner = append(inner, i)
		}
	}
	k := &transposeKernel{rows: y[0].size, cols: x[0].size, dstRow: x[0].dstStr, srcRow: y[0].srcStr, unit: unit, convFirst: convFirst}
	return k, inner, out, true
}

// splitLoop splits l into an inner loop of at most blk values and an outer one. A loop
// that is its dim's top may split unevenly (the excess is past the data); others split by
// the largest power of two ≤ blk that divides them.
func (p *Plan) splitLoop(l loop, blk int64) []loop {
	if l.size <= blk {
		return []loop{l}
	}
	top := l.place*l.size >= p.bounds[l.dim].size
	b := blk
	if !top {
		for b > 1 && l.size%b != 0 {
			b /= 2
		}
		if b < 8 {
			return []loop{l}
		}
	}
	in := loop{size: b, dstStr: l.dstStr, srcStr: l.srcStr, dim: l.dim, place: l.place}
	out := loop{size: layout.CeilDiv(l.size, b), dstStr: l.dstStr * b, srcStr: l.srcStr * b, dim: l.dim, place: l.place * b}
	return []loop{in, out}
}
