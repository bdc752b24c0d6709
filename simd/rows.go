package simd

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// Rows describes a batch of calls of one kernel: call i works on every
// operand advanced by i strides, DstStride bytes for the destinations and
// SrcStride for the sources. Destination rows must not overlap each other or
// any source row; source rows may (a stride of 0 reads one row N times). A
// batch checks bounds once and, in the vector implementations, runs one
// assembly loop over all rows: short rows (a 128-element tile row) spend more
// on a call than on their data.
//
// Stream asks for non-temporal stores, which the vector implementations use
// when every destination row starts on a 64-byte boundary, and also when the
// rows are a multiple of 64 bytes apart and all start the same whole number of
// 32-bit words before one, such as those of a NumPy array (its data starts 16
// bytes past a boundary): for destinations larger than the cache they save the
// read of each line before it is written. Such a batch does not end with a
// fence, so that many can share one: call [Kernels.Fence] after the last,
// before other goroutines may read the destinations.
type Rows struct {
	N                    int // calls; >= 0
	DstStride, SrcStride int // bytes; >= 0
	Stream               bool
}

// shape describes a kernel's operands.
type shape struct {
	w   [5]int  // bytes per element of each operand
	dst [5]bool // which operands are destinations
	out int     // bytes written per element
}

// Operand shapes of the batched kernels, in their argument order.
var (
	shCopy           = shape{[5]int{1, 1}, [5]bool{true}, 1}                             // dst, src (n bytes)
	shNarrow         = shape{[5]int{2, 4}, [5]bool{true}, 2}                             // dst16, src32
	shWiden          = shape{[5]int{4, 2}, [5]bool{true}, 4}                             // dst32, src16
	shPack16         = shape{[5]int{4, 2, 2}, [5]bool{true}, 4}                          // dst, a16, b16
	shUnpack16       = shape{[5]int{2, 2, 4}, [5]bool{true, true}, 4}                    // a16, b16, src
	shPackF32        = shape{[5]int{4, 4, 4}, [5]bool{true}, 4}                          // dst, a32, b32
	shUnpackToF32    = shape{[5]int{4, 4, 4}, [5]bool{true, true}, 8}                    // a32, b32, src
	shPack8x4        = shape{[5]int{4, 1, 1, 1, 1}, [5]bool{true}, 4}                    // dst, r0..r3
	shUnpack8x4      = shape{[5]int{1, 1, 1, 1, 4}, [5]bool{true, true, true, true}, 4}  // r0..r3, src
	shToF8           = shape{[5]int{1, 4}, [5]bool{true}, 1}                             // dst8, src32
	shFromF8         = shape{[5]int{4, 1}, [5]bool{true}, 4}                             // dst32, src8
	shPackF8x4       = shape{[5]int{4, 4, 4, 4, 4}, [5]bool{true}, 4}                    // dst, r0..r3 f32
	shSplit4         = shape{[5]int{1, 1, 1}, [5]bool{true, true}, 2}                    // lo, hi, src
	shJoin4          = shape{[5]int{1, 1, 1}, [5]bool{true}, 1}                          // out, lo, hi
	shPackPairs4     = shape{[5]int{1, 2}, [5]bool{true}, 1}                             // out, in (a pair an element)
	shUnpackPairs4   = shape{[5]int{2, 1}, [5]bool{true}, 2}                             // out (a pair an element), in
	shSplitWords     = shape{[5]int{1, 4}, [5]bool{true}, 8}                             // dst (a row of the 8), src words
	shFromF8To16     = shape{[5]int{2, 1}, [5]bool{true}, 2}                             // dst16, src8
	shFrom16ToF8     = shape{[5]int{1, 2}, [5]bool{true}, 1}                             // dst8, src16
	shPack16F8x4     = shape{[5]int{4, 2, 2, 2, 2}, [5]bool{true}, 4}                    // dst, r0..r3 bf16 or f16
	shUnpackF8x4To16 = shape{[5]int{2, 2, 2, 2, 4}, [5]bool{true, true, true, true}, 8}  // r0..r3 bf16 or f16, src quads
	shUnpackF8x4     = shape{[5]int{4, 4, 4, 4, 4}, [5]bool{true, true, true, true}, 16} // r0..r3 f32, src quads
)

// stride returns operand i's row stride.
func (sh *shape) stride(i int, r Rows) int {
	if sh.dst[i] {
		return r.DstStride
	}
	return r.SrcStride
}

// batch checks a batch's arguments and reports whether it has rows to run.
func batch(r Rows, n int) bool {
	if r.N < 0 || r.DstStride < 0 || r.SrcStride < 0 || n < 0 || n > maxN {
		panicArgs(r, n)
	}
	return r.N > 0
}

// fits panics unless operand i, of length bytes, holds r.N > 0 rows of n <=
// maxN elements (so the row's bytes do not overflow), and returns its stride.
// The multiplication's high word catches overflow of the rows' span.
func (sh *shape) fits(i, length int, r Rows, n int) int {
	st, row := sh.stride(i, r), uint64(sh.w[i]*n)
	hi, lo := bits.Mul64(uint64(r.N-1), uint64(st))
	if hi != 0 || lo > uint64(length) || row > uint64(length)-lo {
		panicShort(i, length, r.N, int(row), st)
	}
	return st
}

func panicArgs(r Rows, n int) {
	panic(fmt.Sprintf("simd: Rows: argument out of range (N=%d DstStride=%d SrcStride=%d n=%d)", r.N, r.DstStride, r.SrcStride, n))
}

func panicShort(i, length, rows, row, stride int) {
	panic(fmt.Sprintf("simd: Rows: operand %d has %d bytes, short of %d rows of %d bytes %d apart", i, length, rows, row, stride))
}

// direct says whether a batch can run the batched assembly (and the narrower
// set's and the generic code on the rows' tails) rather than the single-call kernel once per row:
// not when there is no assembly (blk 0), when the race detector must be told
// what the assembly touches, or when rows are long enough to stream.
func (sh *shape) direct(n, blk int) bool {
	return blk > 0 && !raceEnabled && sh.out*n < ntThreshold
}

// streams says whether a batch takes the non-temporal assembly: asked for, and
// every destination row 64-byte aligned (enough for any vector width).
func (sh *shape) streams(r Rows, ops ...*byte) bool {
	if !r.Stream || r.DstStride%64 != 0 {
		return false
	}
	for i, p := range ops {
		if sh.dst[i] && uintptr(unsafe.Pointer(p))%64 != 0 {
			return false
		}
	}
	return true
}

// rows2 runs a two-operand kernel (copy, conversions) on a batch: the batched
// assembly on whole iterations of blk elements of every row (asm[0], or asm[1]
// with non-temporal stores when streams says so), the narrower set's on half
// a block of each tail (asm[2], if any), and gen on the rest; or, when direct
// says no, the single-call kernel once per row.
func rows2(sh *shape, x, y []byte, n int, r Rows, blk int, asm [3]asm2, ae [2]asm2e, eblk int, gen, one func(x, y []byte, n int)) {
	if !batch(r, n) {
		return
	}
	s0, s1 := sh.fits(0, len(x), r, n), sh.fits(1, len(y), r, n)
	if !sh.direct(n, blk) {
		for i := range r.N {
			one(x[i*s0:], y[i*s1:], n)
		}
		return
	}
	e := n / blk * blk
	if e > 0 {
		nt := sh.streams(r, &x[0], &y[0])
		if ed := (edges{}); !nt && ae[0] != nil {
			if it, m := sh.edgePlan(&ed, r, n, eblk, [5]int{len(x), len(y)}, ae[1] != nil, &x[0], &y[0]); m > 0 {
				ae[ed[4]](&x[0], &y[0], it, m, r.DstStride, r.SrcStride, ed)
				if m < r.N { // the last rows, whose tail blocks would read past the sources
					rows2(sh, x[m*s0:], y[m*s1:], n, Rows{N: r.N - m, DstStride: r.DstStride, SrcStride: r.SrcStride, Stream: true}, blk, asm, [2]asm2e{}, 0, gen, one)
				}
				return
			}
		}
		asm[b2i(nt)](&x[0], &y[0], n/blk, r.N, r.DstStride, r.SrcStride)
	}
	if hb := blk / 2; asm[2] != nil && n-e >= hb { // half a block: the narrower set's one iteration
		asm[2](&x[sh.w[0]*e], &y[sh.w[1]*e], 1, r.N, r.DstStride, r.SrcStride)
		e += hb
	}
	for i := 0; e < n && i < r.N; i++ {
		gen(x[i*s0+sh.w[0]*e:], y[i*s1+sh.w[1]*e:], n-e)
	}
}

// rows3 is rows2 for three operands (pair packing).
func rows3(sh *shape, x, y, z []byte, n int, r Rows, blk int, asm [3]asm3, ae [2]asm3e, eblk int, gen, one func(x, y, z []byte, n int)) {
	if !batch(r, n) {
		return
	}
	s0, s1, s2 := sh.fits(0, len(x), r, n), sh.fits(1, len(y), r, n), sh.fits(2, len(z), r, n)
	if !sh.direct(n, blk) {
		for i := range r.N {
			one(x[i*s0:], y[i*s1:], z[i*s2:], n)
		}
		return
	}
	e := n / blk * blk
	if e > 0 {
		nt := sh.streams(r, &x[0], &y[0], &z[0])
		if ed := (edges{}); !nt && ae[0] != nil {
			if it, m := sh.edgePlan(&ed, r, n, eblk, [5]int{len(x), len(y), len(z)}, ae[1] != nil, &x[0], &y[0], &z[0]); m > 0 {
				ae[ed[4]](&x[0], &y[0], &z[0], it, m, r.DstStride, r.SrcStride, ed)
				if m < r.N {
					rows3(sh, x[m*s0:], y[m*s1:], z[m*s2:], n, Rows{N: r.N - m, DstStride: r.DstStride, SrcStride: r.SrcStride, Stream: true}, blk, asm, [2]asm3e{}, 0, gen, one)
				}
				return
			}
		}
		asm[b2i(nt)](&x[0], &y[0], &z[0], n/blk, r.N, r.DstStride, r.SrcStride)
	}
	if hb := blk / 2; asm[2] != nil && n-e >= hb { // half a block: the narrower set's one iteration
		asm[2](&x[sh.w[0]*e], &y[sh.w[1]*e], &z[sh.w[2]*e], 1, r.N, r.DstStride, r.SrcStride)
		e += hb
	}
	for i := 0; e < n && i < r.N; i++ {
		gen(x[i*s0+sh.w[0]*e:], y[i*s1+sh.w[1]*e:], z[i*s2+sh.w[2]*e:], n-e)
	}
}

// rows5 is rows2 for five operands (quad packing).
func rows5(sh *shape, v, w, x, y, z []byte, n int, r Rows, blk int, asm [3]asm5, ae [2]asm5e, eblk int, gen, one func(v, w, x, y, z []byte, n int)) {
	if !batch(r, n) {
		return
	}
	s0, s1, s2 := sh.fits(0, len(v), r, n), sh.fits(1, len(w), r, n), sh.fits(2, len(x), r, n)
	s3, s4 := sh.fits(3, len(y), r, n), sh.fits(4, len(z), r, n)
	if !sh.direct(n, blk) {
		for i := range r.N {
			one(v[i*s0:], w[i*s1:], x[i*s2:], y[i*s3:], z[i*s4:], n)
		}
		return
	}
	e := n / blk * blk
	if e > 0 {
		nt := sh.streams(r, &v[0], &w[0], &x[0], &y[0], &z[0])
		if ed := (edges{}); !nt && ae[0] != nil {
			if it, m := sh.edgePlan(&ed, r, n, eblk, [5]int{len(v), len(w), len(x), len(y), len(z)}, ae[1] != nil, &v[0], &w[0], &x[0], &y[0], &z[0]); m > 0 {
				ae[ed[4]](&v[0], &w[0], &x[0], &y[0], &z[0], it, m, r.DstStride, r.SrcStride, ed)
				if m < r.N {
					rows5(sh, v[m*s0:], w[m*s1:], x[m*s2:], y[m*s3:], z[m*s4:], n, Rows{N: r.N - m, DstStride: r.DstStride, SrcStride: r.SrcStride, Stream: true}, blk, asm, [2]asm5e{}, 0, gen, one)
				}
				return
			}
		}
		asm[b2i(nt)](&v[0], &w[0], &x[0], &y[0], &z[0], n/blk, r.N, r.DstStride, r.SrcStride)
	}
	if hb := blk / 2; asm[2] != nil && n-e >= hb { // half a block: the narrower set's one iteration
		asm[2](&v[sh.w[0]*e], &w[sh.w[1]*e], &x[sh.w[2]*e], &y[sh.w[3]*e], &z[sh.w[4]*e], 1, r.N, r.DstStride, r.SrcStride)
		e += hb
	}
	for i := 0; e < n && i < r.N; i++ {
		gen(v[i*s0+sh.w[0]*e:], w[i*s1+sh.w[1]*e:], x[i*s2+sh.w[2]*e:], y[i*s3+sh.w[3]*e:], z[i*s4+sh.w[4]*e:], n-e)
	}
}

// longQuads returns the single-call form of a quad packing or unpacking with f8 that
// has only batched assembly (asm[0], blk elements an iteration, or none), for the rows
// rows5 does not batch (long ones, or under the race detector): the assembly on the
// whole blocks and gen on the rest, or gen on all of it.
func longQuads(sh *shape, asm [3]asm5, blk int, gen func(v, w, x, y, z []byte, n int)) func(v, w, x, y, z []byte, n int) {
	if asm[0] == nil {
		return gen
	}
	return func(v, w, x, y, z []byte, n int) {
		e := 0
		if !raceEnabled && n >= blk {
			for i, o := range [][]byte{v, w, x, y, z} {
				sh.fits(i, len(o), Rows{N: 1}, n)
			}
			e = n / blk * blk
			asm[0](&v[0], &w[0], &x[0], &y[0], &z[0], n/blk, 1, 0, 0)
		}
		gen(v[sh.w[0]*e:], w[sh.w[1]*e:], x[sh.w[2]*e:], y[sh.w[3]*e:], z[sh.w[4]*e:], n-e)
	}
}

// Batched assembly kernels: it iterations of the kernel's block on each of
// rows rows (see simd/_asm).
type (
	asm2 func(x, y *byte, it, rows, dstStride, srcStride int)
	asm3 func(x, y, z *byte, it, rows, dstStride, srcStride int)
	asm5 func(v, w, x, y, z *byte, it, rows, dstStride, srcStride int)
	// asmWords has one destination of eight rows, rowStride bytes apart.
	asmWords func(dst *byte, rowStride int, src *byte, it, rows, dstStride, srcStride int)
)

// rowAsm is one kind of batched assembly (ordinary or non-temporal stores);
// the generic implementation has none (all nil, vw 0).
type rowAsm struct {
	vw int // vector width in bytes: 16-bit pairs and 8-bit quads take vw elements per iteration, f32 kernels vw/2, copy 4*vw bytes

	copy, f32ToBF16, f32ToF16, bf16ToF32, f16ToF32                                        asm2
	interleave16, deinterleave16, f32ToBF16Interleave, f32ToF16Interleave, bf16DeintToF32 asm3
	interleave8x4, deinterleave8x4                                                        asm5
	// f32 rows converted to f8 and packed in quads, vw/4 elements per iteration.
	f32ToF8E4M3FNInterleave8x4, f32ToF8E5M2Interleave8x4 asm5
	splitNibbles, joinNibbles                            asm3     // vw bytes per iteration
	splitNibbleWords                                     asmWords // vw words per iteration
	packNibblePairs, unpackNibblePairs                   asm2     // vw bytes out per iteration
	// f8 quads unpacked into f32 rows, vw/4 quads per iteration.
	f8E4M3FNDeintToF32, f8E5M2DeintToF32 asm5
	// f32 runs to f8, vw elements per iteration; f8 runs to f32, vw/4.
	f32ToF8E4M3FN, f32ToF8E5M2 asm2
	f8E4M3FNToF32, f8E5M2ToF32 asm2
	// f8 runs to bf16 and f16, vw/2 elements per iteration.
	f8E4M3FNToBF16, f8E4M3FNToF16, f8E5M2ToBF16, f8E5M2ToF16 asm2
	// The same by table lookup (AVX-512 VBMI), vw elements per iteration, or nil:
	// e4m3fn → bf16, e4m3fn → f16, e5m2 → bf16, e5m2 → f16.
	f8To16VBMI [4]asm2
	// f8 quads unpacked into four bf16 or f16 rows by table lookup (AVX-512 VBMI),
	// vw/2 quads per iteration, or nil; the same order.
	f8QuadsTo16VBMI [4]asm5
	// bf16 and f16 runs to f8, vw elements per iteration.
	bf16ToF8E4M3FN, bf16ToF8E5M2, f16ToF8E4M3FN, f16ToF8E5M2 asm2
	// bf16 and f16 rows converted to f8 and packed in quads, vw/4 elements per iteration.
	bf16ToF8E4M3FNInterleave8x4, bf16ToF8E5M2Interleave8x4, f16ToF8E4M3FNInterleave8x4, f16ToF8E5M2Interleave8x4 asm5
}

// addRows fills k's batched kernels from its single-call ones and the batched
// assembly with ordinary (a) and non-temporal (an) stores, and of the narrower
// set (h, with half the vector width; or none), which takes half a block of
// the rows' tails: a T(8,128) edge tile's 44 leftover bf16 pairs are 32 for
// AVX2's interleave and 12 for Go rather than 44 for Go.
func addRows(k *Kernels, a, an, h rowAsm, ae, aw edgeAsm) *Kernels {
	v, hv := a.vw, a.vw/2
	k.CopyRows = func(dst, src []byte, n int, r Rows) {
		one := copyN
		if r.Stream {
			one = k.copyNTN
		}
		rows2(&shCopy, dst, src, n, r, 4*v, [3]asm2{a.copy, an.copy, nil}, [2]asm2e{ae.copy, aw.copy}, ae.blk(4*v), copyN, one)
	}
	k.F32ToBF16Rows = func(dst, src []byte, n int, r Rows) {
		rows2(&shNarrow, dst, src, n, r, hv, [3]asm2{a.f32ToBF16, an.f32ToBF16, h.f32ToBF16}, [2]asm2e{ae.f32ToBF16, aw.f32ToBF16}, ae.blk(hv), genericF32ToBF16, k.F32ToBF16)
	}
	k.F32ToF16Rows = func(dst, src []byte, n int, r Rows) {
		rows2(&shNarrow, dst, src, n, r, hv, [3]asm2{a.f32ToF16, an.f32ToF16, h.f32ToF16}, [2]asm2e{ae.f32ToF16, aw.f32ToF16}, ae.blk(hv), genericF32ToF16, k.F32ToF16)
	}
	k.BF16ToF32Rows = func(dst, src []byte, n int, r Rows) {
		rows2(&shWiden, dst, src, n, r, hv, [3]asm2{a.bf16ToF32, an.bf16ToF32, h.bf16ToF32}, [2]asm2e{ae.bf16ToF32, aw.bf16ToF32}, ae.blk(hv), genericBF16ToF32, k.BF16ToF32)
	}
	k.F16ToF32Rows = func(dst, src []byte, n int, r Rows) {
		rows2(&shWiden, dst, src, n, r, hv, [3]asm2{a.f16ToF32, an.f16ToF32, h.f16ToF32}, [2]asm2e{ae.f16ToF32, aw.f16ToF32}, ae.blk(hv), genericF16ToF32, k.F16ToF32)
	}
	k.Interleave16Rows = func(dst, x, y []byte, n int, r Rows) {
		rows3(&shPack16, dst, x, y, n, r, v, [3]asm3{a.interleave16, an.interleave16, h.interleave16}, [2]asm3e{ae.interleave16, aw.interleave16}, ae.blk(v), genericInterleave16, k.Interleave16)
	}
	k.Deinterleave16Rows = func(x, y, src []byte, n int, r Rows) {
		if skipRows(deinterleaveSplit(&shUnpack16, &shExtract16, x, y, src, n, r, ae.blk(v), aw.lo16, aw.hi16), &x, &y, &src, &r) {
			return
		}
		rows3(&shUnpack16, x, y, src, n, r, v, [3]asm3{a.deinterleave16, an.deinterleave16, h.deinterleave16}, [2]asm3e{ae.deinterleave16, aw.deinterleave16}, ae.blk(v), genericDeinterleave16, k.Deinterleave16)
	}
	k.F32ToBF16InterleaveRows = func(dst, x, y []byte, n int, r Rows) {
		rows3(&shPackF32, dst, x, y, n, r, hv, [3]asm3{a.f32ToBF16Interleave, an.f32ToBF16Interleave, h.f32ToBF16Interleave}, [2]asm3e{ae.f32ToBF16Interleave, aw.f32ToBF16Interleave}, ae.blk(hv), genericF32ToBF16Interleave, k.F32ToBF16Interleave)
	}
	k.F32ToF16InterleaveRows = func(dst, x, y []byte, n int, r Rows) {
		rows3(&shPackF32, dst, x, y, n, r, hv, [3]asm3{a.f32ToF16Interleave, an.f32ToF16Interleave, h.f32ToF16Interleave}, [2]asm3e{ae.f32ToF16Interleave, aw.f32ToF16Interleave}, ae.blk(hv), genericF32ToF16Interleave, k.F32ToF16Interleave)
	}
	k.BF16DeinterleaveToF32Rows = func(x, y, src []byte, n int, r Rows) {
		if skipRows(deinterleaveSplit(&shUnpackToF32, &shExtractToF32, x, y, src, n, r, ae.blk(hv), aw.loToF32, aw.hiToF32), &x, &y, &src, &r) {
			return
		}
		rows3(&shUnpackToF32, x, y, src, n, r, hv, [3]asm3{a.bf16DeintToF32, an.bf16DeintToF32, h.bf16DeintToF32}, [2]asm3e{ae.bf16DeintToF32, aw.bf16DeintToF32}, ae.blk(hv), genericBF16DeinterleaveToF32, k.BF16DeinterleaveToF32)
	}
	k.Interleave8x4Rows = func(dst, r0, r1, r2, r3 []byte, n int, r Rows) {
		rows5(&shPack8x4, dst, r0, r1, r2, r3, n, r, v, [3]asm5{a.interleave8x4, an.interleave8x4, h.interleave8x4}, [2]asm5e{ae.interleave8x4, aw.interleave8x4}, ae.blk(v), genericInterleave8x4, k.Interleave8x4)
	}
	k.Deinterleave8x4Rows = func(r0, r1, r2, r3, src []byte, n int, r Rows) {
		rows5(&shUnpack8x4, r0, r1, r2, r3, src, n, r, v, [3]asm5{a.deinterleave8x4, an.deinterleave8x4, h.deinterleave8x4}, [2]asm5e{ae.deinterleave8x4, aw.deinterleave8x4}, ae.blk(v), genericDeinterleave8x4, k.Deinterleave8x4)
	}
	// SplitNibblesRows has no single-call form either: long rows, and the race
	// detector's runs, take the generic code row by row.
	split, splitBlk := [3]asm3{a.splitNibbles, an.splitNibbles, h.splitNibbles}, 0
	if a.splitNibbles != nil {
		splitBlk = v
	}
	k.SplitNibblesRows = func(lo, hi, src []byte, n int, r Rows) {
		rows3(&shSplit4, lo, hi, src, n, r, splitBlk, split, [2]asm3e{}, 0, genericSplitNibbles, genericSplitNibbles)
	}
	words := [2]asmWords{a.splitNibbleWords, an.splitNibbleWords}
	k.SplitNibbleWordsRows = func(dst []byte, rowStride int, src []byte, n int, r Rows) {
		splitNibbleWordsRows(words, v, dst, rowStride, src, n, r)
	}
	join, joinBlk := [3]asm3{a.joinNibbles, an.joinNibbles, h.joinNibbles}, 0
	if a.joinNibbles != nil {
		joinBlk = v
	}
	k.JoinNibblesRows = func(out, lo, hi []byte, n int, r Rows) {
		rows3(&shJoin4, out, lo, hi, n, r, joinBlk, join, [2]asm3e{}, 0, genericJoinNibbles, genericJoinNibbles)
	}
	pairs, pairsBlk := [3]asm2{a.packNibblePairs, an.packNibblePairs, h.packNibblePairs}, 0
	unpairs, unpairsBlk := [3]asm2{a.unpackNibblePairs, an.unpackNibblePairs, h.unpackNibblePairs}, 0
	if a.packNibblePairs != nil {
		pairsBlk, unpairsBlk = v, v/2
	}
	k.PackNibblePairsRows = func(out, in []byte, n int, r Rows) {
		rows2(&shPackPairs4, out, in, n, r, pairsBlk, pairs, [2]asm2e{}, 0, genericPackNibblePairs, genericPackNibblePairs)
	}
	k.UnpackNibblePairsRows = func(out, in []byte, n int, r Rows) {
		rows2(&shUnpackPairs4, out, in, n, r, unpairsBlk, unpairs, [2]asm2e{}, 0, genericUnpackNibblePairs, genericUnpackNibblePairs)
	}
	// The f8 conversions have no single-call form: where there is no batched assembly
	// (blk 0) the rows run the generic code.
	for _, c := range []struct {
		f       f8Format
		t       *[256]uint32
		to      *func(dst, src []byte, n int, r Rows)
		from    *func(dst, src []byte, n int, r Rows)
		packed  *func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
		asm     [3]asm5
		deint   *func(r0, r1, r2, r3, src []byte, n int, r Rows)
		dasm    [3]asm5
		toAsm   [3]asm2
		frAsm   [3]asm2
		t16     [2]*[256]uint16 // bf16, f16
		from16  [2]*func(dst, src []byte, n int, r Rows)
		asm16   [2][3]asm2
		to16    [2]*func(dst, src []byte, n int, r Rows) // from bf16, f16
		asmTo   [2][3]asm2
		pack16  [2]*func(dst, r0, r1, r2, r3 []byte, n int, r Rows) // from bf16, f16
		asmP16  [2][3]asm5
		quads16 [2]*func(r0, r1, r2, r3, src []byte, n int, r Rows) // to bf16, f16
	}{
		{e4m3fn, &f8e4m3fnToF32, &k.F32ToF8E4M3FNRows, &k.F8E4M3FNToF32Rows, &k.F32ToF8E4M3FNInterleave8x4Rows, [3]asm5{a.f32ToF8E4M3FNInterleave8x4, an.f32ToF8E4M3FNInterleave8x4, h.f32ToF8E4M3FNInterleave8x4},
			&k.F8E4M3FNDeinterleave8x4ToF32Rows, [3]asm5{a.f8E4M3FNDeintToF32, an.f8E4M3FNDeintToF32, h.f8E4M3FNDeintToF32},
			[3]asm2{a.f32ToF8E4M3FN, an.f32ToF8E4M3FN, h.f32ToF8E4M3FN}, [3]asm2{a.f8E4M3FNToF32, an.f8E4M3FNToF32, h.f8E4M3FNToF32},
			[2]*[256]uint16{&f8e4m3fnToBF16, &f8e4m3fnToF16}, [2]*func(dst, src []byte, n int, r Rows){&k.F8E4M3FNToBF16Rows, &k.F8E4M3FNToF16Rows},
			[2][3]asm2{{a.f8E4M3FNToBF16, an.f8E4M3FNToBF16, h.f8E4M3FNToBF16}, {a.f8E4M3FNToF16, an.f8E4M3FNToF16, h.f8E4M3FNToF16}},
			[2]*func(dst, src []byte, n int, r Rows){&k.BF16ToF8E4M3FNRows, &k.F16ToF8E4M3FNRows},
			[2][3]asm2{{a.bf16ToF8E4M3FN, an.bf16ToF8E4M3FN, h.bf16ToF8E4M3FN}, {a.f16ToF8E4M3FN, an.f16ToF8E4M3FN, h.f16ToF8E4M3FN}},
			[2]*func(dst, r0, r1, r2, r3 []byte, n int, r Rows){&k.BF16ToF8E4M3FNInterleave8x4Rows, &k.F16ToF8E4M3FNInterleave8x4Rows},
			[2][3]asm5{{a.bf16ToF8E4M3FNInterleave8x4, an.bf16ToF8E4M3FNInterleave8x4, h.bf16ToF8E4M3FNInterleave8x4}, {a.f16ToF8E4M3FNInterleave8x4, an.f16ToF8E4M3FNInterleave8x4, h.f16ToF8E4M3FNInterleave8x4}},
			[2]*func(r0, r1, r2, r3, src []byte, n int, r Rows){&k.F8E4M3FNDeinterleave8x4ToBF16Rows, &k.F8E4M3FNDeinterleave8x4ToF16Rows}},
		{e5m2, &f8e5m2ToF32, &k.F32ToF8E5M2Rows, &k.F8E5M2ToF32Rows, &k.F32ToF8E5M2Interleave8x4Rows, [3]asm5{a.f32ToF8E5M2Interleave8x4, an.f32ToF8E5M2Interleave8x4, h.f32ToF8E5M2Interleave8x4},
			&k.F8E5M2Deinterleave8x4ToF32Rows, [3]asm5{a.f8E5M2DeintToF32, an.f8E5M2DeintToF32, h.f8E5M2DeintToF32},
			[3]asm2{a.f32ToF8E5M2, an.f32ToF8E5M2, h.f32ToF8E5M2}, [3]asm2{a.f8E5M2ToF32, an.f8E5M2ToF32, h.f8E5M2ToF32},
			[2]*[256]uint16{&f8e5m2ToBF16, &f8e5m2ToF16}, [2]*func(dst, src []byte, n int, r Rows){&k.F8E5M2ToBF16Rows, &k.F8E5M2ToF16Rows},
			[2][3]asm2{{a.f8E5M2ToBF16, an.f8E5M2ToBF16, h.f8E5M2ToBF16}, {a.f8E5M2ToF16, an.f8E5M2ToF16, h.f8E5M2ToF16}},
			[2]*func(dst, src []byte, n int, r Rows){&k.BF16ToF8E5M2Rows, &k.F16ToF8E5M2Rows},
			[2][3]asm2{{a.bf16ToF8E5M2, an.bf16ToF8E5M2, h.bf16ToF8E5M2}, {a.f16ToF8E5M2, an.f16ToF8E5M2, h.f16ToF8E5M2}},
			[2]*func(dst, r0, r1, r2, r3 []byte, n int, r Rows){&k.BF16ToF8E5M2Interleave8x4Rows, &k.F16ToF8E5M2Interleave8x4Rows},
			[2][3]asm5{{a.bf16ToF8E5M2Interleave8x4, an.bf16ToF8E5M2Interleave8x4, h.bf16ToF8E5M2Interleave8x4}, {a.f16ToF8E5M2Interleave8x4, an.f16ToF8E5M2Interleave8x4, h.f16ToF8E5M2Interleave8x4}},
			[2]*func(r0, r1, r2, r3, src []byte, n int, r Rows){&k.F8E5M2Deinterleave8x4ToBF16Rows, &k.F8E5M2Deinterleave8x4ToF16Rows}},
	} {
		to := func(dst, src []byte, n int) { genericF32ToF8(c.f, dst, src, n) }
		from := func(dst, src []byte, n int) { genericF8ToF32(c.t, dst, src, n) }
		packed := func(dst, r0, r1, r2, r3 []byte, n int) { genericF32ToF8Interleave8x4(c.f, dst, r0, r1, r2, r3, n) }
		toBlk := 0
		if c.toAsm[0] != nil {
			toBlk = v
		}
		toOne := longRows(&shToF8, c.toAsm, toBlk, to)
		*c.to = func(dst, src []byte, n int, r Rows) {
			rows2(&shToF8, dst, src, n, r, toBlk, c.toAsm, [2]asm2e{}, 0, to, toOne[b2i(r.Stream)])
		}
		frBlk := 0
		if c.frAsm[0] != nil {
			frBlk = v / 4
		}
		frOne := longRows(&shFromF8, c.frAsm, frBlk, from)
		*c.from = func(dst, src []byte, n int, r Rows) {
			rows2(&shFromF8, dst, src, n, r, frBlk, c.frAsm, [2]asm2e{}, 0, from, frOne[b2i(r.Stream)])
		}
		for j, t := range c.t16 {
			gen := func(dst, src []byte, n int) { genericF8To16(t, dst, src, n) }
			blk, asm := 0, c.asm16[j]
			if asm[0] != nil {
				blk = v / 2
			}
			if lut := 2*int(c.f) + j; a.f8To16VBMI[lut] != nil {
				// The lookup's block is twice the arithmetic's, which takes the half block of the tails.
				blk, asm = v, [3]asm2{a.f8To16VBMI[lut], an.f8To16VBMI[lut], asm[0]}
			}
			lut := 2*int(c.f) + j
			qgen := func(r0, r1, r2, r3, src []byte, n int) { genericF8Deinterleave8x4To16(t, r0, r1, r2, r3, src, n) }
			qasm, qblk := [3]asm5{a.f8QuadsTo16VBMI[lut], an.f8QuadsTo16VBMI[lut]}, 0
			if qasm[0] != nil {
				qblk = v / 2
			}
			qone := longQuads(&shUnpackF8x4To16, qasm, qblk, qgen)
			*c.quads16[j] = func(r0, r1, r2, r3, src []byte, n int, r Rows) {
				rows5(&shUnpackF8x4To16, r0, r1, r2, r3, src, n, r, qblk, qasm, [2]asm5e{}, 0, qgen, qone)
			}
			one := longRows(&shFromF8To16, asm, blk, gen)
			*c.from16[j] = func(dst, src []byte, n int, r Rows) {
				rows2(&shFromF8To16, dst, src, n, r, blk, asm, [2]asm2e{}, 0, gen, one[b2i(r.Stream)])
			}
			widen := [2]func(uint16) uint32{BF16BitsToF32, F16BitsToF32}[j]
			genTo := func(dst, src []byte, n int) { genericF16ToF8(c.f, widen, dst, src, n) }
			blkTo, asmTo := 0, c.asmTo[j]
			if asmTo[0] != nil {
				blkTo = v
			}
			oneTo := longRows(&shFrom16ToF8, asmTo, blkTo, genTo)
			*c.to16[j] = func(dst, src []byte, n int, r Rows) {
				rows2(&shFrom16ToF8, dst, src, n, r, blkTo, asmTo, [2]asm2e{}, 0, genTo, oneTo[b2i(r.Stream)])
			}
			genP := func(dst, r0, r1, r2, r3 []byte, n int) {
				genericF16ToF8Interleave8x4(c.f, widen, dst, r0, r1, r2, r3, n)
			}
			blkP, asmP := 0, c.asmP16[j]
			if asmP[0] != nil {
				blkP = v / 4
			}
			oneP := longQuads(&shPack16F8x4, asmP, blkP, genP)
			*c.pack16[j] = func(dst, r0, r1, r2, r3 []byte, n int, r Rows) {
				rows5(&shPack16F8x4, dst, r0, r1, r2, r3, n, r, blkP, asmP, [2]asm5e{}, 0, genP, oneP)
			}
		}
		blk := 0
		if c.asm[0] != nil {
			blk = v / 4
		}
		one := longQuads(&shPackF8x4, c.asm, blk, packed)
		*c.packed = func(dst, r0, r1, r2, r3 []byte, n int, r Rows) {
			rows5(&shPackF8x4, dst, r0, r1, r2, r3, n, r, blk, c.asm, [2]asm5e{}, 0, packed, one)
		}
		deint := func(r0, r1, r2, r3, src []byte, n int) { genericF8Deinterleave8x4ToF32(c.t, r0, r1, r2, r3, src, n) }
		dblk := 0
		if c.dasm[0] != nil {
			dblk = v / 4
		}
		*c.deint = func(r0, r1, r2, r3, src []byte, n int, r Rows) {
			rows5(&shUnpackF8x4, r0, r1, r2, r3, src, n, r, dblk, c.dasm, [2]asm5e{}, 0, deint, deint)
		}
	}
	k.F8QuadsTo16Kernel = a.f8QuadsTo16VBMI[0] != nil
	return k
}

// longRows returns the single-row forms of a batched two-operand kernel that has no
// single-call kernel, for the rows rows2 does not batch (rows long enough to stream, or
// under the race detector): the assembly on the row's whole blocks, with ordinary
// stores ([0]) or, when the destination is 64-byte aligned, non-temporal ones without
// the fence ([1], for Rows with Stream), and gen on the rest. Without assembly, or under
// the race detector, gen on all of it. (Long runs must not fall back to gen alone: an
// 8192² array is one run of 2^26 elements; bench/design-notes.md.)
func longRows(sh *shape, asm [3]asm2, blk int, gen func(x, y []byte, n int)) [2]func(x, y []byte, n int) {
	one := func(nt bool) func(x, y []byte, n int) {
		return func(x, y []byte, n int) {
			e := 0
			if asm[0] != nil && !raceEnabled && n >= blk {
				sh.fits(0, len(x), Rows{N: 1}, n)
				sh.fits(1, len(y), Rows{N: 1}, n)
				e = n / blk * blk
				a := asm[0]
				if nt && uintptr(unsafe.Pointer(&x[0]))%64 == 0 {
					a = asm[1]
				}
				a(&x[0], &y[0], n/blk, 1, 0, 0)
			}
			gen(x[sh.w[0]*e:], y[sh.w[1]*e:], n-e)
		}
	}
	return [2]func(x, y []byte, n int){one(false), one(true)}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func copyN(dst, src []byte, n int) { copy(dst[:n], src[:n]) }

func (k *Kernels) copyNTN(dst, src []byte, n int) { k.CopyNT(dst[:n], src[:n]) }

// splitNibbleWordsRows runs SplitNibbleWordsRows: the assembly (asm[1] with
// non-temporal stores when asked for and every row is 64-byte aligned) on whole
// iterations of blk words of each row, the generic code on the rest, and on all of
// it without assembly or under the race detector.
func splitNibbleWordsRows(asm [2]asmWords, blk int, dst []byte, rowStride int, src []byte, n int, r Rows) {
	if !batch(r, n) {
		return
	}
	if rowStride < 0 {
		panicArgs(r, n)
	}
	// dst holds r.N blocks of 8 rows; the block's span is 7 strides and a row.
	if hi, lo := bits.Mul64(7, uint64(rowStride)); hi != 0 || lo > uint64(len(dst)) {
		panicShort(0, len(dst), 8, n, rowStride)
	} else {
		shSplitWords.fits(0, len(dst)-int(lo), r, n)
	}
	shSplitWords.fits(1, len(src), r, n)
	e := 0
	if asm[0] != nil && !raceEnabled && n >= blk {
		e = n / blk * blk
		nt := r.Stream && r.DstStride%64 == 0 && rowStride%64 == 0 && uintptr(unsafe.Pointer(&dst[0]))%64 == 0
		asm[b2i(nt)](&dst[0], rowStride, &src[0], n/blk, r.N, r.DstStride, r.SrcStride)
	}
	for i := 0; e < n && i < r.N; i++ {
		genericSplitNibbleWords(dst[i*r.DstStride+e:], rowStride, src[i*r.SrcStride+4*e:], n-e)
	}
}
