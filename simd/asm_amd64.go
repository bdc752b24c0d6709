//go:build amd64 && gc && !purego && !noasm

package simd

import "unsafe"

// This file wraps the generated assembly (kernels_amd64.s, stubs in
// kernels_amd64.go) into Kernels. Every wrapper checks bounds once, lets the
// assembly do whole loop iterations, and finishes heads and tails with the
// generic Go code. Kernels other than Copy switch to the non-temporal
// variant of their assembly when one call writes at least ntThreshold bytes
// and the destinations can be aligned to the vector width.

const asmEnabled = true

// asmSet is one instruction set's assembly functions.
type asmSet struct {
	name string
	vw   int // vector width in bytes

	fill func(dst, pat *byte, n int)

	// The assembly keyed by kernel and types (filled by fillTables, generated):
	// single-row with ordinary and non-temporal stores, batched likewise, and
	// batched with edges (see edgeAsm).
	one, oneNT            singleAsm
	rows, rowsNT          rowAsm
	rowsEdges, rowsEdgesW edgeAsm // rowsEdgesW: per-row edges, for rows apart by other than whole lines
	// The same-type packings that ask ahead for the next batch's rows (Rows.Ahead),
	// with Prefetch's hints: PREFETCHNTA, and PREFETCHT1 (prefetchToL2).
	ahead, aheadT1 aheadAsm

	transpose32, transpose16, transpose8 func(dst *byte, dstStride int, src *byte, srcStride int, n int)
	// Non-temporal transposes without SFENCE (nil where a store is less than a cache line).
	transpose32NT, transpose16NT, transpose8NT func(dst *byte, dstStride int, src *byte, srcStride int, n int)
	t32, t16, t8                               int // block sizes of the transposes
	// transpose32w4 takes t32×4 blocks: the columns right of the last whole block,
	// four at a time (a transposed T(8,128)(2,1) tile is 4 words wide), and
	// transpose32h4 4×t32 blocks: the rows below the last whole block, four at a time.
	transpose32w4, transpose32h4 func(dst *byte, dstStride int, src *byte, srcStride int, n int)
	// transpose8h8 takes 8×16 byte blocks: the rows below the last whole block, eight at
	// a time (bytes packed (8,1), as int4 unpacked to bytes in T(64,128)(8,1)), and
	// transpose8w8 16×8 ones: the columns right of the last whole block (reading such
	// bytes back).
	transpose8h8, transpose8w8 func(dst *byte, dstStride int, src *byte, srcStride int, n int)
	// tiles32 and tiles32NT are the 16×16 32-bit transposes into groups of 2, 4 and 8
	// destination rows (indexed by tileIndex), for Transpose32Tiles; nil where there
	// are none. Groups of 2 are the word rows of an 8-bit T(8,128)(4,1) tile.
	tiles32, tiles32NT [3]func(dst *byte, dstStride, groupStride int, src *byte, srcStride int, n int)
	// from32 and from32NT are their inverses, for Transpose32FromTiles.
	from32, from32NT [3]func(dst *byte, dstStride int, src *byte, srcStride, groupStride int, n int)
	// narrower takes a transpose's edges that are too thin for this set's blocks but
	// not for its own (a 64×8 f32 block is all edge for AVX-512's 16×16 kernel).
	narrower *asmSet
	// alignT8 says that transpose8 stores whole vectors to destination rows and
	// is used only when they are aligned to the vector width (see transposeW).
	alignT8 bool
}

var avx2Set = &asmSet{
	name: "avx2", vw: 32, fill: fillAVX2,
	rows: rowAsm{vw: 32}, rowsNT: rowAsm{vw: 32},
	transpose32: transpose32AVX2, transpose16: transpose16AVX2, transpose8: transpose8AVX2,
	transpose32NT: blockPairsNT(transpose32NTAVX2, transpose32AVX2, 8, 4),
	transpose16NT: blockPairsNT(transpose16NTAVX2, transpose16AVX2, 16, 2),
	transpose32w4: transpose32w4AVX2, transpose32h4: transpose32h4AVX2, transpose8h8: transpose8h8AVX2, transpose8w8: transpose8w8AVX2,
	tiles32:   [3]func(*byte, int, int, *byte, int, int){transpose32g2AVX2, transpose32g4AVX2, transpose32g8AVX2},
	tiles32NT: [3]func(*byte, int, int, *byte, int, int){transpose32g2NTAVX2, transpose32g4NTAVX2, transpose32g8NTAVX2},
	from32:    [3]func(*byte, int, *byte, int, int, int){transpose32f2AVX2, transpose32f4AVX2, transpose32f8AVX2},
	from32NT:  [3]func(*byte, int, *byte, int, int, int){transpose32f2NTAVX2, transpose32f4NTAVX2, transpose32f8NTAVX2},
	t32:       8, t16: 16, t8: 16,
}

var avx512Set = &asmSet{
	name: "avx512", vw: 64, fill: fillAVX512,
	rows: rowAsm{vw: 64}, rowsNT: rowAsm{vw: 64},
	transpose32: transpose32AVX512, transpose16: transpose16AVX512, transpose8: transpose8AVX512,
	transpose32NT: transpose32NTAVX512, transpose16NT: transpose16NTAVX512, transpose8NT: transpose8NTAVX512,
	transpose32w4: transpose32w4AVX512, transpose32h4: transpose32h4AVX512, transpose8h8: transpose8h8AVX2, transpose8w8: transpose8w8AVX2,
	tiles32:   [3]func(*byte, int, int, *byte, int, int){transpose32g2AVX512, transpose32g4AVX512, transpose32g8AVX512},
	tiles32NT: [3]func(*byte, int, int, *byte, int, int){transpose32g2NTAVX512, transpose32g4NTAVX512, transpose32g8NTAVX512},
	from32:    [3]func(*byte, int, *byte, int, int, int){transpose32f2AVX512, transpose32f4AVX512, transpose32f8AVX512},
	from32NT:  [3]func(*byte, int, *byte, int, int, int){transpose32f2NTAVX512, transpose32f4NTAVX512, transpose32f8NTAVX512},
	t32:       16, t16: 32, t8: 64, alignT8: true,
	narrower: avx2Set,
}

// singleAsm is a set's single-row assembly: n iterations of the kernel's block.
type singleAsm struct {
	copy    func(dst, src *byte, n int)
	conv    [nDTypes][nDTypes]func(dst, src *byte, n int)
	pack2   [nDTypes][nDTypes]func(dst, a, b *byte, n int)
	unpack2 [nDTypes][nDTypes]func(a, b, src *byte, n int)
	pack4   [nDTypes][nDTypes]func(dst, r0, r1, r2, r3 *byte, n int)
	unpack4 [nDTypes][nDTypes]func(r0, r1, r2, r3, src *byte, n int)
}

func init() {
	fillTables()
	// The AVX-512 set runs AVX2's batches with edges, on blocks half its own.
	avx512Set.rowsEdges, avx512Set.rowsEdgesW = avx2Set.rowsEdges, avx2Set.rowsEdgesW
	avx512Set.rowsEdges.narrow, avx512Set.rowsEdgesW.narrow = true, true
	if !cpuVBMI {
		avx512Set.rows.convVBMI, avx512Set.rowsNT.convVBMI = [nDTypes][nDTypes]asm2{}, [nDTypes][nDTypes]asm2{}
		avx512Set.rows.unpack4VBMI, avx512Set.rowsNT.unpack4VBMI = [nDTypes][nDTypes]asm5{}, [nDTypes][nDTypes]asm5{}
	}
	if cpuAVX2 {
		register(avx2Set.kernels())
	}
	if cpuAVX512 {
		register(avx512Set.kernels())
	}
}

func (s *asmSet) kernels() *Kernels {
	k := &Kernels{
		Name:                 s.name,
		Copy:                 s.copyOrd,
		CopyNT:               s.copyNTW,
		Transpose32Tiles:     s.transpose32Tiles,
		Transpose32FromTiles: s.transpose32FromTiles,
		TileKernels:          s.tileKernels,
		Fill:                 s.fillW,
		Fence:                sfence,
		Prefetch:             prefetch,
		stringCopy:           useStringCopy,
	}
	k.transposes(func(w int, st Stores) TransposeFunc {
		if st == Streaming {
			return s.transposeStreamFunc(w)
		}
		return s.transposeFunc(w, st == NonTemporal)
	})
	s.singles(&k.one)
	addRows(k, s.rows, s.rowsNT, s.narrowerRows(), s.rowsEdges, s.rowsEdgesW)
	addAhead(k, pick(prefetchToL2, s.ahead, s.aheadT1), s.vw)
	s.pairTwin(k)
	return k
}

// pairTwin makes k's twin: the same kernels with the other choice of string copy (see
// Kernels.WithStringCopy), and a CopyRows of its own that follows it.
func (s *asmSet) pairTwin(k *Kernels) {
	t := *k
	t.stringCopy = !k.stringCopy
	t.CopyRows = copyRows(&t, s.rows, s.rowsNT, s.rowsEdges, s.rowsEdgesW)
	k.twin, t.twin = &t, k
}

// singles wraps the set's single-row assembly (see convert, pack and unpack).
func (s *asmSet) singles(one *single) {
	for _, c := range convKernels {
		f, t, gen := c.from, c.to, c.gen
		if ord, nt := s.one.conv[f][t], s.oneNT.conv[f][t]; ord != nil {
			one.conv[f][t] = func(dst, src []byte, n int) { s.convert(dst, src, n, t.Bytes(), f.Bytes(), ord, nt, gen) }
		}
	}
	for _, c := range pack2Kernels {
		f, t, gen, w := c.from, c.to, c.gen, c.from.Bytes()
		if ord, nt := s.one.pack2[f][t], s.oneNT.pack2[f][t]; ord != nil {
			one.pack2[f][t] = func(dst, a, b []byte, n int) { s.pack(dst, a, b, n, w, 2*s.vw/w, ord, nt, gen) }
		}
	}
	for _, c := range unpack2Kernels {
		f, t, gen, w := c.from, c.to, c.gen, c.to.Bytes()
		if ord, nt := s.one.unpack2[f][t], s.oneNT.unpack2[f][t]; ord != nil {
			one.unpack2[f][t] = func(a, b, src []byte, n int) { s.unpack(a, b, src, n, w, 2*s.vw/w, ord, nt, gen) }
		}
	}
	one.pack4[Bits8][Bits8] = s.interleave8x4W
	one.unpack4[Bits8][Bits8] = s.deinterleave8x4W
}

// narrowerRows returns the narrower set's batched kernels, or none.
func (s *asmSet) narrowerRows() rowAsm {
	if s.narrower == nil {
		return rowAsm{}
	}
	return s.narrower.rows
}

func addr(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

// blockPairsNT adapts an AVX2 streaming transpose whose unit is two blocks down the
// source (each destination row's two halves stored together, a whole line) to n
// blocks of rows×rows w-byte elements: an odd last block takes the ordinary kernel.
func blockPairsNT(nt, ord func(dst *byte, ds int, src *byte, ss int, n int), rows, w int) func(dst *byte, ds int, src *byte, ss int, n int) {
	return func(dst *byte, ds int, src *byte, ss int, n int) {
		if n >= 2 {
			nt(dst, ds, src, ss, n/2)
		}
		if n%2 == 1 {
			ord((*byte)(unsafe.Add(unsafe.Pointer(dst), (n-1)*rows*w)), ds, (*byte)(unsafe.Add(unsafe.Pointer(src), (n-1)*rows*ss)), ss, 1)
		}
	}
}

// prefetch asks for every cache line that b touches.
func prefetch(b []byte) {
	if len(b) == 0 {
		return
	}
	a := addr(&b[0])
	n := int((a+uintptr(len(b))-1)/64 - a/64 + 1)
	if prefetchToL2 {
		prefetchT1(&b[0], n)
		return
	}
	prefetchNTA(&b[0], n)
}

// plan splits n elements for a kernel whose assembly handles blk elements per
// iteration and writes eb bytes per element to each destination d[i] (nil
// entries are ignored). It returns the number of leading elements to do in
// Go, the number of assembly iterations after them, and whether to use the
// non-temporal variant (only when every destination is then aligned to the
// vector width).
func (s *asmSet) plan(n, blk, eb, ndst int, d0, d1, d2, d3 *byte) (head, iters int, nt bool) {
	if n*eb*ndst < ntThreshold { // the common, cache-resident case: inlined
		return 0, n / blk, false
	}
	return s.planNT(n, blk, eb, d0, d1, d2, d3)
}

// planNT is plan for writes large enough to stream: non-temporal stores when the
// destinations can be aligned together.
func (s *asmSet) planNT(n, blk, eb int, d0, d1, d2, d3 *byte) (head, iters int, nt bool) {
	mask := uintptr(s.vw - 1)
	mis := int(-addr(d0) & mask)
	if h := mis / eb; mis%eb == 0 && h < n {
		nt = true
		off := uintptr(h * eb)
		for _, d := range [...]*byte{d1, d2, d3} {
			if d != nil && (addr(d)+off)&mask != 0 {
				nt = false
			}
		}
		if nt {
			head = h
		}
	}
	return head, (n - head) / blk, nt
}

// pick returns nt ? b : a.
func pick[F any](nt bool, a, b F) F {
	if nt {
		return b
	}
	return a
}

func (s *asmSet) copyOrd(dst, src []byte) {
	n := len(src)
	dst = dst[:n:len(dst)]
	chunk := 4 * s.vw
	if n < 2*chunk {
		copy(dst, src)
		return
	}
	it := n / chunk
	if raceEnabled {
		raceRead(src[:it*chunk])
		raceWrite(dst[:it*chunk])
	}
	s.one.copy(&dst[0], &src[0], it)
	copy(dst[it*chunk:], src[it*chunk:])
}

func (s *asmSet) copyNTW(dst, src []byte) {
	n := len(src)
	dst = dst[:n:len(dst)]
	chunk := 4 * s.vw
	if n < 2*chunk {
		copy(dst, src)
		return
	}
	h := int(-addr(&dst[0]) & 63) // align the stores to cache lines
	copy(dst[:h], src[:h])
	it := (n - h) / chunk
	e := h + it*chunk
	if raceEnabled {
		raceRead(src[h:e])
		raceWrite(dst[h:e])
	}
	s.oneNT.copy(&dst[h], &src[h], it)
	copy(dst[e:], src[e:])
}

// copyStringW copies src to dst (len(dst) >= len(src)) with REP MOVSB (copyString).
func copyStringW(dst, src []byte) {
	n := len(src)
	if n == 0 {
		return
	}
	dst = dst[:n:len(dst)]
	if raceEnabled {
		raceRead(src)
		raceWrite(dst)
	}
	copyString(&dst[0], &src[0], n)
}

func (s *asmSet) fillW(dst, pattern []byte) {
	checkFill(dst, pattern)
	chunk := 4 * s.vw
	if len(dst) < chunk {
		genericFill(dst, pattern)
		return
	}
	// The first 64 bytes of dst hold the repeated pattern the assembly loads (once, before
	// storing): a local buffer would escape through the function value and allocate.
	head := dst[:64]
	for n := copy(head, pattern); n < len(head); n *= 2 { // doubling: 5 copies for a 2-byte pattern, not 32
		copy(head[n:], head[:n])
	}
	it := len(dst) / chunk
	if raceEnabled {
		raceWrite(dst[:it*chunk])
	}
	s.fill(&dst[0], &dst[0], it)
	for i := it * chunk; i < len(dst); i += len(head) {
		copy(dst[i:], head)
	}
}

// pack is the wrapper of the pair-packing kernels (16-bit pairs and the fused
// conversions): dst gets 4 bytes per pair from the w-byte elements of a and b;
// the assembly does blk pairs per iteration.
func (s *asmSet) pack(dst, a, b []byte, n, w, blk int, ord, ntf func(dst, a, b *byte, n int), gen func(dst, a, b []byte, n int)) {
	checkN(n)
	dst, a, b = dst[:4*n:len(dst)], a[:w*n:len(a)], b[:w*n:len(b)]
	h, it, nt := s.plan(n, blk, 4, 1, unsafe.SliceData(dst), nil, nil, nil)
	if it > 0 {
		if h > 0 { // the part before the aligned start, when streaming
			gen(dst, a, b, h)
		}
		e := h + it*blk
		if raceEnabled {
			raceRead(a[w*h : w*e])
			raceRead(b[w*h : w*e])
			raceWrite(dst[4*h : 4*e])
		}
		pick(nt, ord, ntf)(&dst[4*h], &a[w*h], &b[w*h], it)
		h = e
	} else {
		h = 0
	}
	if h < n {
		gen(dst[4*h:], a[w*h:], b[w*h:], n-h)
	}
}

// unpack is pack's inverse wrapper (Unpack2):
// a and b get w bytes per element from each 4-byte pair of src.
func (s *asmSet) unpack(a, b, src []byte, n, w, blk int, ord, ntf func(a, b, src *byte, n int), gen func(a, b, src []byte, n int)) {
	checkN(n)
	src, a, b = src[:4*n:len(src)], a[:w*n:len(a)], b[:w*n:len(b)]
	h, it, nt := s.plan(n, blk, w, 2, unsafe.SliceData(a), unsafe.SliceData(b), nil, nil)
	if it > 0 {
		if h > 0 { // the part before the aligned start, when streaming
			gen(a, b, src, h)
		}
		e := h + it*blk
		if raceEnabled {
			raceRead(src[4*h : 4*e])
			raceWrite(a[w*h : w*e])
			raceWrite(b[w*h : w*e])
		}
		pick(nt, ord, ntf)(&a[w*h], &b[w*h], &src[4*h], it)
		h = e
	} else {
		h = 0
	}
	if h < n {
		gen(a[w*h:], b[w*h:], src[4*h:], n-h)
	}
}

// convert is the wrapper of the conversions (F32ToBF16, F32ToF16, BF16ToF32,
// F16ToF32): dw destination and sw source bytes per element, vw/2 elements
// per assembly iteration.
func (s *asmSet) convert(dst, src []byte, n, dw, sw int, ord, ntf func(dst, src *byte, n int), gen func(dst, src []byte, n int)) {
	checkN(n)
	dst, src = dst[:dw*n:len(dst)], src[:sw*n:len(src)]
	blk := s.vw / 2
	h, it, nt := s.plan(n, blk, dw, 1, unsafe.SliceData(dst), nil, nil, nil)
	if it > 0 {
		gen(dst, src, h)
		e := h + it*blk
		if raceEnabled {
			raceRead(src[sw*h : sw*e])
			raceWrite(dst[dw*h : dw*e])
		}
		pick(nt, ord, ntf)(&dst[dw*h], &src[sw*h], it)
		h = e
	} else {
		h = 0
	}
	gen(dst[dw*h:], src[sw*h:], n-h)
}

func (s *asmSet) interleave8x4W(dst, r0, r1, r2, r3 []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	r0, r1, r2, r3 = r0[:n:len(r0)], r1[:n:len(r1)], r2[:n:len(r2)], r3[:n:len(r3)]
	blk := s.vw
	h, it, nt := s.plan(n, blk, 4, 1, unsafe.SliceData(dst), nil, nil, nil)
	if it > 0 {
		if h > 0 { // the part before the aligned start, when streaming
			genericInterleave8x4(dst, r0, r1, r2, r3, h)
		}
		e := h + it*blk
		if raceEnabled {
			raceRead(r0[h:e])
			raceRead(r1[h:e])
			raceRead(r2[h:e])
			raceRead(r3[h:e])
			raceWrite(dst[4*h : 4*e])
		}
		pick(nt, s.one.pack4[Bits8][Bits8], s.oneNT.pack4[Bits8][Bits8])(&dst[4*h], &r0[h], &r1[h], &r2[h], &r3[h], it)
		h = e
	} else {
		h = 0
	}
	if h < n {
		genericInterleave8x4(dst[4*h:], r0[h:], r1[h:], r2[h:], r3[h:], n-h)
	}
}

func (s *asmSet) deinterleave8x4W(r0, r1, r2, r3, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	r0, r1, r2, r3 = r0[:n:len(r0)], r1[:n:len(r1)], r2[:n:len(r2)], r3[:n:len(r3)]
	blk := s.vw
	h, it, nt := s.plan(n, blk, 1, 4, unsafe.SliceData(r0), unsafe.SliceData(r1), unsafe.SliceData(r2), unsafe.SliceData(r3))
	if it > 0 {
		if h > 0 { // the part before the aligned start, when streaming
			genericDeinterleave8x4(r0, r1, r2, r3, src, h)
		}
		e := h + it*blk
		if raceEnabled {
			raceRead(src[4*h : 4*e])
			raceWrite(r0[h:e])
			raceWrite(r1[h:e])
			raceWrite(r2[h:e])
			raceWrite(r3[h:e])
		}
		pick(nt, s.one.unpack4[Bits8][Bits8], s.oneNT.unpack4[Bits8][Bits8])(&r0[h], &r1[h], &r2[h], &r3[h], &src[4*h], it)
		h = e
	} else {
		h = 0
	}
	if h < n {
		genericDeinterleave8x4(r0[h:], r1[h:], r2[h:], r3[h:], src[4*h:], n-h)
	}
}

// transposeStripRows is the number of source rows one assembly call walks
// down: 256 rows of one 64-byte line each stay in L1 while the next block
// column reuses them.
const transposeStripRows = 256

// transpose runs the set's nb×nb kernel for w-byte elements on all whole blocks, and
// hands the right and bottom edges to the narrower set, or to the generic code. With
// nt, it uses the non-temporal kernel if the set has one and the destination rows
// are aligned to the vector width, and reports whether it did (the caller fences).
func (s *asmSet) transpose(w int, dst []byte, ds int, src []byte, ss int, rows, cols int, nt bool) (fence bool) {
	if rows == 0 || cols == 0 {
		return false
	}
	nb, kern, kernNT, rect := s.t32, s.transpose32, s.transpose32NT, transposeRect32
	switch w {
	case 2:
		nb, kern, kernNT, rect = s.t16, s.transpose16, s.transpose16NT, transposeRect16
	case 1:
		nb, kern, kernNT, rect = s.t8, s.transpose8, s.transpose8NT, transposeRect8
	}
	if nt && kernNT != nil && ds%s.vw == 0 && addr(&dst[0])%uintptr(s.vw) == 0 {
		kern, fence = kernNT, true
	}
	rb, cb := rows/nb, cols/nb
	r, c := rb*nb, cb*nb
	// 32-bit edges at least four wide take the 4-wide kernels: columns right of the
	// whole blocks (down to row r) and rows below them (up to column c).
	// 8-bit ones take the 16×8 and 8×16 kernels, eight at a time.
	narrow, short := 0, 0
	switch {
	case w == 4 && s.transpose32w4 != nil:
		if rb > 0 {
			narrow = (cols - c) / 4 * 4
		}
		if cb > 0 {
			short = (rows - r) / 4 * 4
		}
	case w == 1 && s.transpose8h8 != nil:
		if rb > 0 {
			narrow = (cols - c) / 8 * 8
		}
		if cb > 0 {
			short = (rows - r) / 8 * 8
		}
	}
	if raceEnabled { // row by row: strided blocks of two goroutines interleave
		for i := 0; i < r; i++ {
			raceRead(src[i*ss : i*ss+(c+narrow)*w])
		}
		for i := r; i < r+short; i++ {
			raceRead(src[i*ss : i*ss+c*w])
		}
		for j := 0; j < c; j++ {
			raceWrite(dst[j*ds : j*ds+(r+short)*w])
		}
		for j := c; j < c+narrow; j++ {
			raceWrite(dst[j*ds : j*ds+r*w])
		}
	}
	step := max(1, transposeStripRows/nb)
	for i := 0; i < rb; i += step {
		k := min(step, rb-i)
		for j := 0; j < cb; j++ {
			kern(&dst[j*nb*ds+i*nb*w], ds, &src[i*nb*ss+j*nb*w], ss, k)
		}
		for j := c; j < c+narrow && w == 4; j += 4 {
			s.transpose32w4(&dst[j*ds+i*nb*w], ds, &src[i*nb*ss+j*w], ss, k)
		}
		for j := c; j < c+narrow && w == 1; j += 8 {
			s.transpose8w8(&dst[j*ds+i*nb], ds, &src[i*nb*ss+j], ss, k*nb/16)
		}
	}
	for i := r; i < r+short && w == 4; i += 4 {
		s.transpose32h4(&dst[i*w], ds, &src[i*ss], ss, cb)
	}
	for i := r; i < r+short && w == 1; i += 8 {
		s.transpose8h8(&dst[i], ds, &src[i*ss], ss, c/16)
	}
	edge := func(r0, r1, c0, c1 int) {
		if r0 >= r1 || c0 >= c1 {
			return
		}
		dst, src := dst[c0*ds+r0*w:], src[r0*ss+c0*w:]
		if s.narrower != nil {
			s.narrower.transpose(w, dst, ds, src, ss, r1-r0, c1-c0, false)
		} else {
			rect(dst, ds, src, ss, 0, r1-r0, 0, c1-c0)
		}
	}
	edge(0, rows, c+narrow, cols) // right of everything above
	edge(r+short, rows, 0, c)     // below the whole blocks and the short rows
	edge(r, rows, c, c+narrow)    // below the narrow columns
	return fence
}

// transposeFunc returns the Transpose kernel for w-byte elements, non-temporal or not.
func (s *asmSet) transposeFunc(w int, nt bool) func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	return func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
		s.transposeW(w, dst, dstStride, src, srcStride, rows, cols, nt)
	}
}

// transposeStreamFunc is transposeFunc's non-temporal kernel without the fence.
func (s *asmSet) transposeStreamFunc(w int) func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	return func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
		s.transposeNoFence(w, dst, dstStride, src, srcStride, rows, cols, true)
	}
}

// transposeW checks the arguments, runs transpose, and fences non-temporal stores.
func (s *asmSet) transposeW(w int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, nt bool) {
	if s.transposeNoFence(w, dst, dstStride, src, srcStride, rows, cols, nt) {
		sfence()
	}
}

// transposeNoFence checks the arguments and runs transpose; it reports whether it
// used non-temporal stores, which a fence must order before dst is read.
func (s *asmSet) transposeNoFence(w int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int, nt bool) bool {
	checkTranspose(w, dst, dstStride, src, srcStride, rows, cols)
	if w == 1 && s.alignT8 && rows >= s.t8 && cols >= s.t8 {
		// The AVX-512 kernel writes 64-byte destination rows. When they would
		// straddle cache lines (every one of them split in two), the AVX2
		// kernel's 16-byte stores are faster (bench/design-notes.md). With a
		// dstStride that is a multiple of 64, the first source rows (destination
		// columns) up to the next 64-byte boundary go to the narrower set and
		// the rest is aligned.
		if dstStride%s.vw != 0 {
			s.narrower.transpose(1, dst, dstStride, src, srcStride, rows, cols, false)
			return false
		}
		if h := int(-addr(&dst[0]) & uintptr(s.vw-1)); h > 0 {
			s.narrower.transpose(1, dst, dstStride, src, srcStride, h, cols, false)
			dst, src, rows = dst[h:], src[h*srcStride:], rows-h
		}
	}
	words := false
	if h := s.alignHead(w, dst, dstStride, rows, cols, nt); h > 0 {
		// The parts of lines before and after the whole ones: with MOVNTI when they
		// are whole words, as an ordinary store would read each line first (its other
		// part belongs to the neighbouring block); else with the narrower set.
		tail := (rows - h) % (64 / w)
		if words = !raceEnabled && h*w%4 == 0 && tail*w%4 == 0; words {
			kw := transpose32WordsNT
			if w == 2 {
				kw = transpose16WordsNT
			}
			kw(&dst[0], dstStride, &src[0], srcStride, h, cols)
			if r := rows - tail; tail > 0 {
				kw(&dst[r*w], dstStride, &src[r*srcStride], srcStride, tail, cols)
			}
			rows -= tail
		} else {
			s.narrower.transpose(w, dst, dstStride, src, srcStride, h, cols, false)
		}
		dst, src, rows = dst[h*w:], src[h*srcStride:], rows-h
	}
	return s.transpose(w, dst, dstStride, src, srcStride, rows, cols, nt) || words
}

// alignHead returns how many source rows (destination columns) of a non-temporal
// transpose go to the narrower set with ordinary stores so that the rest of every
// destination row starts on a vector boundary: destination rows a multiple of the
// vector width apart but starting off it (a NumPy array starts 16 bytes past a
// cache line) would otherwise lose the non-temporal stores altogether.
func (s *asmSet) alignHead(w int, dst []byte, dstStride, rows, cols int, nt bool) int {
	if !nt || w == 1 || s.narrower == nil || rows == 0 || cols == 0 || dstStride%s.vw != 0 {
		return 0
	}
	m := int(-addr(&dst[0]) & uintptr(s.vw-1))
	if m%w != 0 || m/w >= rows {
		return 0
	}
	return m / w
}

// transpose32Tiles is Transpose32Tiles: the 16×16 kernels on whole blocks when g is 2,
// 4 or 8 and the set has them, else the 32-bit transpose one group at a time; the edges right of
// and below the whole blocks go to the generic code (the plans that call it hand it
// whole blocks).
func (s *asmSet) transpose32Tiles(dst []byte, ds, gs, g int, src []byte, ss int, rows, cols int, stream bool) {
	checkTiles(dst, ds, gs, g, src, ss, rows, cols)
	if rows == 0 || cols == 0 {
		return
	}
	var kern func(dst *byte, dstStride, groupStride int, src *byte, srcStride int, n int)
	if i, ok := tileIndex(g); ok {
		kern = s.tiles32[i]
		if stream && s.tiles32NT[i] != nil && ds%64 == 0 && gs%64 == 0 && addr(&dst[0])%64 == 0 {
			kern = s.tiles32NT[i]
		}
	}
	if kern == nil {
		for a := 0; a < cols; a += g {
			s.transposeNoFence(4, dst[a/g*gs:], ds, src[4*a:], ss, rows, min(g, cols-a), stream)
		}
		return
	}
	const nb = 16
	rb, cb := rows/nb, cols/nb
	r, c := rb*nb, cb*nb
	if raceEnabled {
		for i := 0; i < r; i++ {
			raceRead(src[i*ss : i*ss+c*4])
		}
		for j := 0; j < c; j++ {
			o := tileRow(j, ds, gs, g)
			raceWrite(dst[o : o+r*4])
		}
	}
	step := transposeStripRows / nb
	for i := 0; i < rb; i += step {
		k := min(step, rb-i)
		for j := 0; j < cb; j++ {
			kern(&dst[tileRow(j*nb, ds, gs, g)+i*nb*4], ds, gs, &src[i*nb*ss+j*nb*4], ss, k)
		}
	}
	if c < cols {
		tilesRect(dst, ds, gs, g, src, ss, 0, r, c, cols)
	}
	if r < rows {
		tilesRect(dst, ds, gs, g, src, ss, r, rows, 0, cols)
	}
}

// tileKernels is TileKernels: whether the set has the 16×16 kernels for groups of g.
func (s *asmSet) tileKernels(g int) bool {
	i, ok := tileIndex(g)
	return ok && s.tiles32[i] != nil && s.from32[i] != nil
}

// tileIndex is the index into tiles32 and from32 of the kernels for groups of g rows.
func tileIndex(g int) (int, bool) {
	switch g {
	case 2, 4, 8:
		return g / 4, true // 0, 1, 2
	}
	return 0, false
}

// transpose32FromTiles is Transpose32FromTiles, laid out as transpose32Tiles: the
// 16×16 kernels down each column block of whole blocks, the generic code on the edges.
func (s *asmSet) transpose32FromTiles(dst []byte, ds int, src []byte, ss, gs, g int, rows, cols int, stream bool) {
	checkFromTiles(dst, ds, src, ss, gs, g, rows, cols)
	if rows == 0 || cols == 0 {
		return
	}
	var kern func(dst *byte, dstStride int, src *byte, srcStride, groupStride int, n int)
	if i, ok := tileIndex(g); ok {
		kern = s.from32[i]
		if stream && s.from32NT[i] != nil && ds%64 == 0 && addr(&dst[0])%64 == 0 {
			kern = s.from32NT[i]
		}
	}
	if kern == nil {
		for a := 0; a < rows; a += g {
			s.transposeNoFence(4, dst[4*a:], ds, src[a/g*gs:], ss, min(g, rows-a), cols, stream)
		}
		return
	}
	const nb = 16
	rb, cb := rows/nb, cols/nb
	r, c := rb*nb, cb*nb
	if raceEnabled {
		for i := 0; i < r; i++ {
			o := tileRow(i, ss, gs, g)
			raceRead(src[o : o+c*4])
		}
		for j := 0; j < c; j++ {
			raceWrite(dst[j*ds : j*ds+r*4])
		}
	}
	if rb > 0 {
		for j := 0; j < cb; j++ {
			kern(&dst[j*nb*ds], ds, &src[j*nb*4], ss, gs, rb)
		}
	}
	if c < cols {
		fromTilesRect(dst, ds, src, ss, gs, g, 0, r, c, cols)
	}
	if r < rows {
		fromTilesRect(dst, ds, src, ss, gs, g, r, rows, 0, cols)
	}
}
