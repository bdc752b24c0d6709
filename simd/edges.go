package simd

import "unsafe"

// Batched assembly with head and tail blocks (simd/_asm edges.go): the streaming
// batch for destination rows a multiple of 64 bytes apart that all start the same
// distance past a 64-byte boundary, such as the rows of a NumPy array, whose data
// starts 16 bytes past one. Whole lines are streamed as in the aligned batch, and
// the parts of lines before and after them too, with MOVNTI a 32-bit word at a time.
type (
	asm2e func(x, y *byte, it, rows, dstStride, srcStride int, e edges)
	asm3e func(x, y, z *byte, it, rows, dstStride, srcStride int, e edges)
	asm5e func(v, w, x, y, z *byte, it, rows, dstStride, srcStride int, e edges)
)

// edges is the argument of those kernels; see simd/_asm edges.go for its words.
type edges = [8]int

// edgeAsm holds a set's batched assembly with head and tail blocks (none: all nil),
// or that with per-row edges (simd/_asm rowEdges; only the untilings').
// narrow says that they are the narrower set's, whose blocks are half as long: the
// AVX-512 set runs AVX2's, which did better with rows of a tile's 128 elements
// (bench/design-notes.md).
type edgeAsm struct {
	narrow bool

	copy    asm2e
	conv    [nDTypes][nDTypes]asm2e
	pack2   [nDTypes][nDTypes]asm3e
	unpack2 [nDTypes][nDTypes]asm3e
	pack4   [nDTypes][nDTypes]asm5e
	unpack4 [nDTypes][nDTypes]asm5e
	// Per-row only: one destination of an unpack2 each, the low half and the high.
	lo, hi [nDTypes][nDTypes]asm2e
}

// shExtract16 and shExtractToF32 are one destination of deinterleave16 (dst16,
// src32) and of bf16DeintToF32 (dst32, src32).
var (
	shExtract16    = shape{[5]int{2, 4}, [5]bool{true}, 2}
	shExtractToF32 = shape{[5]int{4, 4}, [5]bool{true}, 4}
)

// deinterleaveSplit runs a streaming Deinterleave16Rows (or, with sh3, sh1, lo, hi
// those of bf16DeintToF32, BF16DeinterleaveToF32Rows) batch whose two destination
// rows start at different distances past a line (two rows of a row-major array, such
// as bf16 pair untiling's), rows apart by whole words, as two batches with per-row
// edges, one a destination (the second reads the sources from cache). It
// returns the rows it ran: those before the first whose tail block would read past
// the sources.
func deinterleaveSplit(sh3, sh1 *shape, x, y, src []byte, n int, r Rows, blk int, lo, hi asm2e) int {
	if lo == nil || !r.Stream || r.DstStride%4 != 0 || r.N <= 0 || n <= 0 {
		return 0
	}
	sh3.fits(0, len(x), r, n)
	sh3.fits(1, len(y), r, n)
	sh3.fits(2, len(src), r, n)
	mx, my := int(-uintptr(unsafe.Pointer(&x[0]))&63), int(-uintptr(unsafe.Pointer(&y[0]))&63)
	if mx == my || mx%4 != 0 || my%4 != 0 {
		return 0 // one batch streams both, or neither can stream
	}
	var el, eh edges
	dw, sw := sh1.w[0], sh1.w[1]
	m := min(sh1.rowPlan(&el, r, n, blk, len(src), mx, dw, sw), sh1.rowPlan(&eh, r, n, blk, len(src), my, dw, sw))
	if m == 0 {
		return 0
	}
	lo(&x[0], &src[0], 0, m, r.DstStride, r.SrcStride, el)
	hi(&y[0], &src[0], 0, m, r.DstStride, r.SrcStride, eh)
	return m
}

// skipRows moves a deinterleave batch past its first m rows (those deinterleaveSplit
// ran) and reports whether none are left.
func skipRows(m int, x, y, src *[]byte, r *Rows) bool {
	if m == 0 {
		return false
	}
	if m == r.N {
		return true
	}
	*x, *y, *src = (*x)[m*r.DstStride:], (*y)[m*r.DstStride:], (*src)[m*r.SrcStride:]
	r.N -= m
	return false
}

// edgePlan fills ed for a streaming batch of blk-element iterations whose
// destinations (among ops, the shape's operands in order; lens their slices'
// lengths) all start m bytes before a 64-byte boundary, m being whole 32-bit
// words. With rows a multiple of 64 bytes apart (the kernels with uniform edges),
// the bytes of a row after the boundary must be whole words too, and m at most a
// block's. With rows apart by other whole words, perRow says whether there are
// kernels with per-row edges, which edgePlan then plans (ed[4] = 1, see rowPlan).
// It returns the iterations after the head and the number of rows to run, 0 when
// the kernel cannot: the last rows are left out when their tail blocks would read
// past a source slice.
func (sh *shape) edgePlan(ed *edges, r Rows, n, blk int, lens [5]int, perRow bool, ops ...*byte) (it, rows int) {
	if !r.Stream || r.DstStride%64 != 0 && (!perRow || r.DstStride%4 != 0) {
		return 0, 0
	}
	m, dw, sw, sl := -1, 0, 0, int(^uint(0)>>1)
	for i, p := range ops {
		if !sh.dst[i] {
			sw, sl = sh.w[i], min(sl, lens[i])
			continue
		}
		mi := int(-uintptr(unsafe.Pointer(p)) & 63)
		if m >= 0 && mi != m {
			return 0, 0
		}
		m, dw = mi, sh.w[i]
	}
	if m%4 != 0 {
		return 0, 0
	}
	if r.DstStride%64 != 0 {
		return 0, sh.rowPlan(ed, r, n, blk, sl, m, dw, sw)
	}
	if m > blk*dw { // in one block
		return 0, 0
	}
	h := m / dw
	if it = (n - h) / blk; it <= 0 {
		return 0, 0
	}
	*ed = edges{0: m / 4, 5: m, 6: h * sw}
	rows = r.N
	if t := n - h - it*blk; t > 0 {
		if t*dw%4 != 0 {
			return 0, 0
		}
		ed[7] = t * dw / 4
		// The tail block reads a whole block of each source row.
		if end := (r.N-1)*r.SrcStride + (h+(it+1)*blk)*sw; end > sl {
			rows = r.N - 1
		}
	}
	return it, rows
}

// rowPlan plans a batch with per-row edges: rows whose destinations start m bytes
// before a line in the first row, and further whole words apart, so that every row
// starts at whole words, each row whole words long. The kernel computes each row's
// head, iterations and tail as below; rowPlan returns the rows before the first
// whose tail block would read past sl bytes of the sources (0: none, or rows too
// short for a block after a head of up to 60 bytes).
func (sh *shape) rowPlan(ed *edges, r Rows, n, blk, sl, m, dw, sw int) int {
	bw := blk * dw / 4 // words of a block
	if n*dw%4 != 0 || bw < 16 || n*dw-60 < blk*dw {
		return 0
	}
	*ed = edges{1: n * dw / 4, 2: 4 * sw / dw, 4: 1}
	for i := range r.N {
		w0 := (m/4 + i*(64-r.DstStride%64)/4) % 16 // words before the row's first line
		left := ed[1] - w0
		if left%bw == 0 {
			continue // no tail block
		}
		h := w0 * 4 / dw
		if i*r.SrcStride+(h+(left/bw+1)*blk)*sw > sl {
			return i
		}
	}
	return r.N
}

// blk returns the block of the kernels for a set whose own block is b.
func (ae *edgeAsm) blk(b int) int {
	if ae.narrow {
		return b / 2
	}
	return b
}
