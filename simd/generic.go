package simd

import (
	"encoding/binary"
	"fmt"
)

// This file holds the portable Go kernels. They are always compiled: they are
// the "generic" implementation, the reference the tests compare against, and
// the code the assembly wrappers use for heads and tails.

var le = binary.LittleEndian

var genericKernels = &Kernels{
	Name:                  "generic",
	Copy:                  genericCopy,
	CopyNT:                genericCopy,
	Transpose32:           genericTranspose32,
	Transpose16:           genericTranspose16,
	Transpose8:            genericTranspose8,
	Interleave16:          genericInterleave16,
	Deinterleave16:        genericDeinterleave16,
	Interleave8x4:         genericInterleave8x4,
	Deinterleave8x4:       genericDeinterleave8x4,
	F32ToBF16:             genericF32ToBF16,
	F32ToF16:              genericF32ToF16,
	BF16ToF32:             genericBF16ToF32,
	F16ToF32:              genericF16ToF32,
	F32ToBF16Interleave:   genericF32ToBF16Interleave,
	F32ToF16Interleave:    genericF32ToF16Interleave,
	BF16DeinterleaveToF32: genericBF16DeinterleaveToF32,
	Fill:                  genericFill,
}

func genericCopy(dst, src []byte) {
	copy(dst[:len(src):len(dst)], src)
}

// checkN panics if n is negative.
func checkN(n int) {
	if n < 0 {
		panic(fmt.Sprintf("simd: negative length %d", n))
	}
}

func genericInterleave16(dst, a, b []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	a = a[: 2*n : len(a)]
	b = b[: 2*n : len(b)]
	// Four elements at a time with 64-bit loads (SWAR), then one at a time.
	for len(a) >= 8 && len(b) >= 8 && len(dst) >= 16 {
		x, y := le.Uint64(a), le.Uint64(b)
		le.PutUint64(dst, spread16(uint32(x))|spread16(uint32(y))<<16)
		le.PutUint64(dst[8:], spread16(uint32(x>>32))|spread16(uint32(y>>32))<<16)
		a, b, dst = a[8:], b[8:], dst[16:]
	}
	for len(a) >= 2 && len(b) >= 2 && len(dst) >= 4 {
		le.PutUint32(dst, uint32(le.Uint16(a))|uint32(le.Uint16(b))<<16)
		a, b, dst = a[2:], b[2:], dst[4:]
	}
}

// spread16 moves the two 16-bit halves of v to the low halves of the two
// 32-bit halves of the result.
func spread16(v uint32) uint64 {
	x := uint64(v)
	return (x | x<<16) & 0x0000ffff0000ffff
}

// compact16 is the inverse of spread16: it gathers the low 16 bits of both
// 32-bit halves of w.
func compact16(w uint64) uint32 {
	x := w & 0x0000ffff0000ffff
	return uint32(x | x>>16)
}

func genericDeinterleave16(a, b, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	a = a[: 2*n : len(a)]
	b = b[: 2*n : len(b)]
	for len(a) >= 8 && len(b) >= 8 && len(src) >= 16 {
		w0, w1 := le.Uint64(src), le.Uint64(src[8:])
		le.PutUint64(a, uint64(compact16(w0))|uint64(compact16(w1))<<32)
		le.PutUint64(b, uint64(compact16(w0>>16))|uint64(compact16(w1>>16))<<32)
		a, b, src = a[8:], b[8:], src[16:]
	}
	for len(a) >= 2 && len(b) >= 2 && len(src) >= 4 {
		v := le.Uint32(src)
		le.PutUint16(a, uint16(v))
		le.PutUint16(b, uint16(v>>16))
		a, b, src = a[2:], b[2:], src[4:]
	}
}

func genericInterleave8x4(dst, r0, r1, r2, r3 []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	r0, r1, r2, r3 = r0[:n:len(r0)], r1[:n:len(r1)], r2[:n:len(r2)], r3[:n:len(r3)]
	for i := 0; i < n; i++ {
		v := uint32(r0[i]) | uint32(r1[i])<<8 | uint32(r2[i])<<16 | uint32(r3[i])<<24
		le.PutUint32(dst[4*i:], v)
	}
}

func genericDeinterleave8x4(r0, r1, r2, r3, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	r0, r1, r2, r3 = r0[:n:len(r0)], r1[:n:len(r1)], r2[:n:len(r2)], r3[:n:len(r3)]
	for i := 0; i < n; i++ {
		v := le.Uint32(src[4*i:])
		r0[i] = byte(v)
		r1[i] = byte(v >> 8)
		r2[i] = byte(v >> 16)
		r3[i] = byte(v >> 24)
	}
}

func genericF32ToBF16(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 2*n : len(dst)]
	src = src[: 4*n : len(src)]
	for len(dst) >= 2 && len(src) >= 4 {
		le.PutUint16(dst, F32ToBF16Bits(le.Uint32(src)))
		dst, src = dst[2:], src[4:]
	}
}

func genericF32ToF16(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 2*n : len(dst)]
	src = src[: 4*n : len(src)]
	for i := 0; i < n; i++ {
		le.PutUint16(dst[2*i:], F32ToF16Bits(le.Uint32(src[4*i:])))
	}
}

func genericBF16ToF32(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	src = src[: 2*n : len(src)]
	for len(dst) >= 4 && len(src) >= 2 {
		le.PutUint32(dst, uint32(le.Uint16(src))<<16)
		dst, src = dst[4:], src[2:]
	}
}

func genericF16ToF32(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	src = src[: 2*n : len(src)]
	for i := 0; i < n; i++ {
		le.PutUint32(dst[4*i:], F16BitsToF32(le.Uint16(src[2*i:])))
	}
}

func genericF32ToBF16Interleave(dst, a, b []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	a = a[: 4*n : len(a)]
	b = b[: 4*n : len(b)]
	for len(dst) >= 4 && len(a) >= 4 && len(b) >= 4 {
		lo := F32ToBF16Bits(le.Uint32(a))
		hi := F32ToBF16Bits(le.Uint32(b))
		le.PutUint32(dst, uint32(lo)|uint32(hi)<<16)
		dst, a, b = dst[4:], a[4:], b[4:]
	}
}

func genericF32ToF16Interleave(dst, a, b []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	a = a[: 4*n : len(a)]
	b = b[: 4*n : len(b)]
	for i := 0; i < n; i++ {
		lo := F32ToF16Bits(le.Uint32(a[4*i:]))
		hi := F32ToF16Bits(le.Uint32(b[4*i:]))
		le.PutUint32(dst[4*i:], uint32(lo)|uint32(hi)<<16)
	}
}

func genericBF16DeinterleaveToF32(a, b, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	a = a[: 4*n : len(a)]
	b = b[: 4*n : len(b)]
	for len(src) >= 4 && len(a) >= 4 && len(b) >= 4 {
		v := le.Uint32(src)
		le.PutUint32(a, v<<16)
		le.PutUint32(b, v&0xffff0000)
		src, a, b = src[4:], a[4:], b[4:]
	}
}

// checkFill panics unless pattern and dst are valid arguments for Fill.
func checkFill(dst, pattern []byte) {
	switch len(pattern) {
	case 1, 2, 4, 8, 16:
	default:
		panic(fmt.Sprintf("simd: Fill pattern length %d not in {1,2,4,8,16}", len(pattern)))
	}
	if len(dst)%len(pattern) != 0 {
		panic(fmt.Sprintf("simd: Fill length %d not a multiple of pattern length %d", len(dst), len(pattern)))
	}
}

func genericFill(dst, pattern []byte) {
	checkFill(dst, pattern)
	if len(dst) == 0 {
		return
	}
	n := copy(dst, pattern)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n:len(dst)])
	}
}

// checkTranspose panics unless the arguments describe in-range source and
// destination matrices for a transpose of w-byte elements.
func checkTranspose(w int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	if rows < 0 || cols < 0 || dstStride < 0 || srcStride < 0 {
		panic(fmt.Sprintf("simd: Transpose: negative argument (rows=%d cols=%d dstStride=%d srcStride=%d)", rows, cols, dstStride, srcStride))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*srcStride + cols*w; need > len(src) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose: src too short: need %d bytes, have %d", need, len(src)))
	}
	if need := (cols-1)*dstStride + rows*w; need > len(dst) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose: dst too short: need %d bytes, have %d", need, len(dst)))
	}
}

// Transposes are done in square tiles so that both sides stay in cache.
const genericTile = 32

func genericTranspose32(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTranspose(4, dst, dstStride, src, srcStride, rows, cols)
	transposeRect32(dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

func genericTranspose16(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTranspose(2, dst, dstStride, src, srcStride, rows, cols)
	transposeRect16(dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

func genericTranspose8(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTranspose(1, dst, dstStride, src, srcStride, rows, cols)
	transposeRect8(dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

// transposeRect32 transposes source rows [r0,r1) and columns [c0,c1).
// Bounds must have been checked by the caller.
func transposeRect32(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	for ti := r0; ti < r1; ti += genericTile {
		ie := min(ti+genericTile, r1)
		for tj := c0; tj < c1; tj += genericTile {
			je := min(tj+genericTile, c1)
			for j := tj; j < je; j++ {
				d := dst[j*ds:]
				for i := ti; i < ie; i++ {
					le.PutUint32(d[4*i:], le.Uint32(src[i*ss+4*j:]))
				}
			}
		}
	}
}

func transposeRect16(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	for ti := r0; ti < r1; ti += genericTile {
		ie := min(ti+genericTile, r1)
		for tj := c0; tj < c1; tj += genericTile {
			je := min(tj+genericTile, c1)
			for j := tj; j < je; j++ {
				d := dst[j*ds:]
				for i := ti; i < ie; i++ {
					le.PutUint16(d[2*i:], le.Uint16(src[i*ss+2*j:]))
				}
			}
		}
	}
}

func transposeRect8(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	for ti := r0; ti < r1; ti += genericTile {
		ie := min(ti+genericTile, r1)
		for tj := c0; tj < c1; tj += genericTile {
			je := min(tj+genericTile, c1)
			for j := tj; j < je; j++ {
				d := dst[j*ds:]
				for i := ti; i < ie; i++ {
					d[i] = src[i*ss+j]
				}
			}
		}
	}
}
