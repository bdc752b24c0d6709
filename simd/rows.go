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
// Its Hints change how the work is done, never its result. Stream asks for
// non-temporal stores, which the vector implementations use
// when every destination row starts on a 64-byte boundary, and also when the
// rows are a multiple of 64 bytes apart and all start the same whole number of
// 32-bit words before one, such as those of a NumPy array (its data starts 16
// bytes past a boundary): for destinations larger than the cache they save the
// read of each line before it is written. Such a batch does not end with a
// fence, so that many can share one: call [Kernels.Fence] after the last,
// before other goroutines may read the destinations. A CopyRows row long enough to
// stream runs as the CPU's string copy instead in sets that choose it (see
// [Kernels.StringCopy]).
//
// Ahead, where not 0, asks the same-type pair and quad packings (Pack2 and Pack4 of
// a type to itself) to ask for the lines Ahead bytes past each source line they read
// (the same part of the rows the caller's next batch reads), as Prefetch does; the
// other kernels ignore it. It changes no result; the lines asked for may lie past the
// operands (asking never faults).
type Rows struct {
	N                    int // calls; >= 0
	DstStride, SrcStride int // bytes; >= 0
	Hints
}

// Hints are a batch's requests that change how its kernel works, not what it
// computes (see [Rows]). They are a field of their own so that Rows keeps four
// fields and 32 bytes, which the compiler keeps in registers: larger, it keeps every Rows
// in memory, and relayout's bf16 unpacking, which makes many short batches, ran
// about a quarter slower (bench/design-notes.md).
type Hints struct {
	Stream bool
	Ahead  int32 // bytes
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
	shJoinWords      = shape{[5]int{4, 1}, [5]bool{true}, 4}                             // dst words, src (a row of the 8)
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
					rows2(sh, x[m*s0:], y[m*s1:], n, Rows{N: r.N - m, DstStride: r.DstStride, SrcStride: r.SrcStride, Hints: Hints{Stream: true}}, blk, asm, [2]asm2e{}, 0, gen, one)
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
					rows3(sh, x[m*s0:], y[m*s1:], z[m*s2:], n, Rows{N: r.N - m, DstStride: r.DstStride, SrcStride: r.SrcStride, Hints: Hints{Stream: true}}, blk, asm, [2]asm3e{}, 0, gen, one)
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
					rows5(sh, v[m*s0:], w[m*s1:], x[m*s2:], y[m*s3:], z[m*s4:], n, Rows{N: r.N - m, DstStride: r.DstStride, SrcStride: r.SrcStride, Hints: Hints{Stream: true}}, blk, asm, [2]asm5e{}, 0, gen, one)
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
	// asmWordsPair runs two asmWords batches of the same shape a step of each in turn.
	asmWordsPair func(dst, dst2 *byte, rowStride int, src, src2 *byte, it, rows, dstStride, srcStride int)
)

// rowAsm is one kind of batched assembly (ordinary or non-temporal stores),
// keyed as the lookups are; the generic implementation has none (all nil, vw 0).
// The generator fills the tables (tables_amd64.go).
type rowAsm struct {
	vw int // vector width in bytes; rowKernels gives each kernel's elements per iteration

	copy    asm2 // 4*vw bytes per iteration
	conv    [nDTypes][nDTypes]asm2
	pack2   [nDTypes][nDTypes]asm3
	unpack2 [nDTypes][nDTypes]asm3
	pack4   [nDTypes][nDTypes]asm5
	unpack4 [nDTypes][nDTypes]asm5
	// The f8 widenings to bf16 and f16 by table lookup (AVX-512 VBMI), or nil: vw
	// elements per iteration (the arithmetic's then takes half a block of the tails),
	// and vw/2 quads for the unpacking.
	convVBMI    [nDTypes][nDTypes]asm2
	unpack4VBMI [nDTypes][nDTypes]asm5

	splitNibbles, joinNibbles          asm3         // vw bytes per iteration
	splitNibbleWords, joinNibbleWords  asmWords     // vw words per iteration
	splitNibbleWordsPair               asmWordsPair // non-temporal only (rowsNT), or nil
	packNibblePairs, unpackNibblePairs asm2         // vw bytes out per iteration

	// copyHalves is copy in half-width vectors (AVX-512's streaming table only), which
	// CopyRows runs on rows of halvesFrom bytes or more.
	copyHalves asm2
}

// addRows fills k's batched kernels from its single-call ones (k.one) and the
// batched assembly with ordinary (a) and non-temporal (an) stores, and of the narrower
// set (h, with half the vector width; or none), which takes half a block of
// the rows' tails: a T(8,128) edge tile's 44 leftover bf16 pairs are 32 for
// AVX2's interleave and 12 for Go rather than 44 for Go.
func addRows(k *Kernels, a, an, h rowAsm, ae, aw edgeAsm) *Kernels {
	v := a.vw
	k.CopyRows = copyRows(k, a, an, ae, aw)
	for _, c := range convKernels {
		f, t := c.from, c.to
		asm := [3]asm2{a.conv[f][t], an.conv[f][t], h.conv[f][t]}
		blk := c.blk(asm[0] != nil, v)
		if vb := a.convVBMI[f][t]; vb != nil {
			blk, asm = v, [3]asm2{vb, an.convVBMI[f][t], asm[0]}
		}
		ed, eblk := [2]asm2e{ae.conv[f][t], aw.conv[f][t]}, ae.blk(blk)
		ones := longRows(c.sh, asm, blk, c.gen)
		if one := k.one.conv[f][t]; one != nil {
			ones = [2]func(x, y []byte, n int){one, one}
		}
		k.conv[f][t] = func(dst, src []byte, n int, r Rows) {
			rows2(c.sh, dst, src, n, r, blk, asm, ed, eblk, c.gen, ones[b2i(r.Stream)])
		}
	}
	for _, c := range pack2Kernels {
		f, t := c.from, c.to
		asm := [3]asm3{a.pack2[f][t], an.pack2[f][t], h.pack2[f][t]}
		blk := c.blk(asm[0] != nil, v)
		ed, eblk, one := [2]asm3e{ae.pack2[f][t], aw.pack2[f][t]}, ae.blk(blk), k.one.pack2[f][t]
		if one == nil {
			one = c.gen
		}
		k.pack2[f][t] = func(dst, x, y []byte, n int, r Rows) {
			rows3(c.sh, dst, x, y, n, r, blk, asm, ed, eblk, c.gen, one)
		}
	}
	for _, c := range unpack2Kernels {
		f, t := c.from, c.to
		asm := [3]asm3{a.unpack2[f][t], an.unpack2[f][t], h.unpack2[f][t]}
		blk := c.blk(asm[0] != nil, v)
		ed, eblk, one := [2]asm3e{ae.unpack2[f][t], aw.unpack2[f][t]}, ae.blk(blk), k.one.unpack2[f][t]
		if one == nil {
			one = c.gen
		}
		lo, hi := aw.lo[f][t], aw.hi[f][t]
		k.unpack2[f][t] = func(x, y, src []byte, n int, r Rows) {
			if skipRows(deinterleaveSplit(c.sh, c.half, x, y, src, n, r, eblk, lo, hi), &x, &y, &src, &r) {
				return
			}
			rows3(c.sh, x, y, src, n, r, blk, asm, ed, eblk, c.gen, one)
		}
	}
	for _, c := range pack4Kernels {
		f, t := c.from, c.to
		asm := [3]asm5{a.pack4[f][t], an.pack4[f][t], h.pack4[f][t]}
		blk := c.blk(asm[0] != nil, v)
		ed, eblk, one := [2]asm5e{ae.pack4[f][t], aw.pack4[f][t]}, ae.blk(blk), k.one.pack4[f][t]
		if one == nil {
			one = longQuads(c.sh, asm, blk, c.gen)
		}
		k.pack4[f][t] = func(dst, r0, r1, r2, r3 []byte, n int, r Rows) {
			rows5(c.sh, dst, r0, r1, r2, r3, n, r, blk, asm, ed, eblk, c.gen, one)
		}
	}
	for _, c := range unpack4Kernels {
		f, t := c.from, c.to
		asm := [3]asm5{a.unpack4[f][t], an.unpack4[f][t], h.unpack4[f][t]}
		if vb := a.unpack4VBMI[f][t]; vb != nil {
			asm = [3]asm5{vb, an.unpack4VBMI[f][t]}
		}
		blk := c.blk(asm[0] != nil, v)
		ed, eblk, one := [2]asm5e{ae.unpack4[f][t], aw.unpack4[f][t]}, ae.blk(blk), k.one.unpack4[f][t]
		switch {
		case one != nil:
		case c.long:
			one = longQuads(c.sh, asm, blk, c.gen)
		default:
			one = c.gen
		}
		k.unpack4[f][t] = func(r0, r1, r2, r3, src []byte, n int, r Rows) {
			rows5(c.sh, r0, r1, r2, r3, src, n, r, blk, asm, ed, eblk, c.gen, one)
		}
	}
	k.F8QuadsTo16Kernel = a.unpack4VBMI[F8E4M3FN][BF16] != nil
	addNibbleRows(k, a, an, h)
	return k
}

// addNibbleRows fills k's int4 kernels. They have no single-call form: long rows,
// and the race detector's runs, take the generic code row by row.
func addNibbleRows(k *Kernels, a, an, h rowAsm) {
	v := a.vw
	split, splitBlk := [3]asm3{a.splitNibbles, an.splitNibbles, h.splitNibbles}, 0
	if a.splitNibbles != nil {
		splitBlk = v
	}
	k.Nibbles.SplitRows = func(lo, hi, src []byte, n int, r Rows) {
		rows3(&shSplit4, lo, hi, src, n, r, splitBlk, split, [2]asm3e{}, 0, genericSplitNibbles, genericSplitNibbles)
	}
	words := [2]asmWords{a.splitNibbleWords, an.splitNibbleWords}
	k.Nibbles.SplitWordsRows = func(dst []byte, rowStride int, src []byte, n int, r Rows) {
		splitNibbleWordsRows(words, v, dst, rowStride, src, n, r)
	}
	pair := an.splitNibbleWordsPair
	k.Nibbles.SplitWordsRowsPair = func(dst, dst2 []byte, rowStride int, src, src2 []byte, n int, r Rows) {
		splitNibbleWordsRowsPair(words, pair, v, dst, dst2, rowStride, src, src2, n, r)
	}
	joinWords := [2]asmWords{a.joinNibbleWords, an.joinNibbleWords}
	k.Nibbles.JoinWordsRows = func(dst, src []byte, rowStride int, n int, r Rows) {
		joinNibbleWordsRows(joinWords, v, dst, src, rowStride, n, r)
	}
	join, joinBlk := [3]asm3{a.joinNibbles, an.joinNibbles, h.joinNibbles}, 0
	if a.joinNibbles != nil {
		joinBlk = v
	}
	k.Nibbles.JoinRows = func(out, lo, hi []byte, n int, r Rows) {
		rows3(&shJoin4, out, lo, hi, n, r, joinBlk, join, [2]asm3e{}, 0, genericJoinNibbles, genericJoinNibbles)
	}
	pairs, pairsBlk := [3]asm2{a.packNibblePairs, an.packNibblePairs, h.packNibblePairs}, 0
	unpairs, unpairsBlk := [3]asm2{a.unpackNibblePairs, an.unpackNibblePairs, h.unpackNibblePairs}, 0
	if a.packNibblePairs != nil {
		pairsBlk, unpairsBlk = v, v/2
	}
	k.Nibbles.PackPairsRows = func(out, in []byte, n int, r Rows) {
		rows2(&shPackPairs4, out, in, n, r, pairsBlk, pairs, [2]asm2e{}, 0, genericPackNibblePairs, genericPackNibblePairs)
	}
	k.Nibbles.UnpackPairsRows = func(out, in []byte, n int, r Rows) {
		rows2(&shUnpackPairs4, out, in, n, r, unpairsBlk, unpairs, [2]asm2e{}, 0, genericUnpackNibblePairs, genericUnpackNibblePairs)
	}
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

// copyRows is k's CopyRows from the batched copy assembly with ordinary (a) and
// non-temporal (an) stores and the edge kernels (ae, aw); a row long enough to stream
// runs k.copyNTN, so that its choice of string copy is k's.
func copyRows(k *Kernels, a, an rowAsm, ae, aw edgeAsm) RowsFunc {
	blk := 4 * a.vw
	return func(dst, src []byte, n int, r Rows) {
		one := copyN
		if r.Stream {
			one = k.copyNTN
		}
		nt := an.copy
		if an.copyHalves != nil && n >= halvesFrom {
			nt = an.copyHalves
		}
		rows2(&shCopy, dst, src, n, r, blk, [3]asm2{a.copy, nt, nil}, [2]asm2e{ae.copy, aw.copy}, ae.blk(blk), copyN, one)
	}
}

// halvesFrom is the row length from which AVX-512's batched streaming copy stores
// 32-byte vectors (rowAsm.copyHalves), not 64-byte ones: rows of whole tiles (2 KiB of
// bf16, a T(8,128)(2,1) tile copied into T(16,128)(2,1)), not a T(8,128) tile's
// 512-byte f32 rows (bench/design-notes.md).
const halvesFrom = 2 << 10

func copyN(dst, src []byte, n int) { copy(dst[:n], src[:n]) }

// copyNTN copies one long row asked to stream: with REP MOVSB where the set says so
// (stringCopy), else with CopyNT.
func (k *Kernels) copyNTN(dst, src []byte, n int) {
	if k.stringCopy {
		copyStringW(dst[:n], src[:n])
		return
	}
	k.CopyNT(dst[:n], src[:n])
}

// splitNibbleWordsRows runs Nibbles.SplitWordsRows: the assembly (asm[1] with
// non-temporal stores when asked for and every row is 64-byte aligned) on whole
// iterations of blk words of each row, the generic code on the rest, and on all of
// it without assembly or under the race detector.
func splitNibbleWordsRows(asm [2]asmWords, blk int, dst []byte, rowStride int, src []byte, n int, r Rows) {
	if !splitWordsFit(dst, rowStride, src, n, r) {
		return
	}
	e := 0
	if asm[0] != nil && !raceEnabled && n >= blk {
		e = n / blk * blk
		nt := r.Stream && r.DstStride%64 == 0 && rowStride%64 == 0 && aligned64(dst)
		asm[b2i(nt)](&dst[0], rowStride, &src[0], n/blk, r.N, r.DstStride, r.SrcStride)
	}
	splitNibbleWordsTails(dst, rowStride, src, n, e, r)
}

// splitWordsFit panics unless dst and src hold Nibbles.SplitWordsRows' batch r of n
// words a row, and reports whether the batch has rows.
func splitWordsFit(dst []byte, rowStride int, src []byte, n int, r Rows) bool {
	if !batch(r, n) {
		return false
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
	return true
}

// splitNibbleWordsTails splits words [e, n) of each row of the batch in Go.
func splitNibbleWordsTails(dst []byte, rowStride int, src []byte, n, e int, r Rows) {
	for i := 0; e < n && i < r.N; i++ {
		genericSplitNibbleWords(dst[i*r.DstStride+e:], rowStride, src[i*r.SrcStride+4*e:], n-e)
	}
}

func aligned64(b []byte) bool { return uintptr(unsafe.Pointer(&b[0]))%64 == 0 }

// splitNibbleWordsRowsPair runs Nibbles.SplitWordsRowsPair: the pair's assembly
// when the set has it and both batches would take the non-temporal assembly of
// splitNibbleWordsRows, else that function on each batch in turn.
func splitNibbleWordsRowsPair(asm [2]asmWords, pair asmWordsPair, blk int, dst, dst2 []byte, rowStride int, src, src2 []byte, n int, r Rows) {
	if !splitWordsFit(dst, rowStride, src, n, r) || !splitWordsFit(dst2, rowStride, src2, n, r) {
		return
	}
	if pair == nil || raceEnabled || n < blk || !r.Stream || r.DstStride%64 != 0 || rowStride%64 != 0 || !aligned64(dst) || !aligned64(dst2) {
		splitNibbleWordsRows(asm, blk, dst, rowStride, src, n, r)
		splitNibbleWordsRows(asm, blk, dst2, rowStride, src2, n, r)
		return
	}
	e := n / blk * blk
	pair(&dst[0], &dst2[0], rowStride, &src[0], &src2[0], n/blk, r.N, r.DstStride, r.SrcStride)
	splitNibbleWordsTails(dst, rowStride, src, n, e, r)
	splitNibbleWordsTails(dst2, rowStride, src2, n, e, r)
}

// joinNibbleWordsRows runs Nibbles.JoinWordsRows as splitNibbleWordsRows runs its
// inverse, with the eight rows on the source side.
func joinNibbleWordsRows(asm [2]asmWords, blk int, dst, src []byte, rowStride int, n int, r Rows) {
	if !batch(r, n) {
		return
	}
	if rowStride < 0 {
		panicArgs(r, n)
	}
	shJoinWords.fits(0, len(dst), r, n)
	// src holds r.N blocks of 8 rows; the block's span is 7 strides and a row.
	if hi, lo := bits.Mul64(7, uint64(rowStride)); hi != 0 || lo > uint64(len(src)) {
		panicShort(1, len(src), 8, n, rowStride)
	} else {
		shJoinWords.fits(1, len(src)-int(lo), r, n)
	}
	e := 0
	if asm[0] != nil && !raceEnabled && n >= blk {
		e = n / blk * blk
		nt := r.Stream && r.DstStride%64 == 0 && uintptr(unsafe.Pointer(&dst[0]))%64 == 0
		asm[b2i(nt)](&dst[0], rowStride, &src[0], n/blk, r.N, r.DstStride, r.SrcStride)
	}
	for i := 0; e < n && i < r.N; i++ {
		genericJoinNibbleWords(dst[i*r.DstStride+4*e:], src[i*r.SrcStride+e:], rowStride, n-e)
	}
}
