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

// edgeAsm holds a set's batched assembly with head and tail blocks (none: all nil).
// narrow says that they are the narrower set's, whose blocks are half as long: the
// AVX-512 set runs AVX2's, which did better with rows of a tile's 128 elements
// (bench/design-notes.md).
type edgeAsm struct {
	narrow bool

	copy, f32ToBF16, f32ToF16, bf16ToF32, f16ToF32                                        asm2e
	interleave16, deinterleave16, f32ToBF16Interleave, f32ToF16Interleave, bf16DeintToF32 asm3e
	interleave8x4, deinterleave8x4                                                        asm5e
}

// edgePlan fills ed for a streaming batch of blk-element iterations whose
// destinations (among ops, the shape's operands in order; lens their slices'
// lengths) all start m bytes before a 64-byte boundary, and whose rows are a
// multiple of 64 bytes apart, m and the bytes of a row after the boundary being
// whole 32-bit words, and m at most a block's. It returns the iterations after the head and the number of
// rows to run, 0 when the kernel cannot: the last row is left out when its tail
// block would read past a source slice.
func (sh *shape) edgePlan(ed *edges, r Rows, n, blk int, lens [5]int, ops ...*byte) (it, rows int) {
	if !r.Stream || r.DstStride%64 != 0 {
		return 0, 0
	}
	m, dw, sw := -1, 0, 0
	for i, p := range ops {
		if !sh.dst[i] {
			sw = sh.w[i]
			continue
		}
		mi := int(-uintptr(unsafe.Pointer(p)) & 63)
		if m >= 0 && mi != m {
			return 0, 0
		}
		m, dw = mi, sh.w[i]
	}
	if m%4 != 0 || m > blk*dw { // whole words, so whole elements; in one block
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
		end := (r.N-1)*r.SrcStride + (h+(it+1)*blk)*sw
		for i := range ops {
			if !sh.dst[i] && end > lens[i] {
				rows = r.N - 1
			}
		}
	}
	return it, rows
}

// blk returns the block of the kernels for a set whose own block is b.
func (ae *edgeAsm) blk(b int) int {
	if ae.narrow {
		return b / 2
	}
	return b
}
