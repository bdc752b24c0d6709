package simd

import (
	"encoding/binary"
	"fmt"
	"math"
)

// This file holds the portable Go kernels. They are always compiled: they are
// the "generic" implementation, the reference the tests compare against, and
// the code the assembly wrappers use for heads and tails.

var le = binary.LittleEndian

var genericKernels = addRows(newGeneric(), rowAsm{}, rowAsm{}, rowAsm{}, edgeAsm{}, edgeAsm{})

func newGeneric() *Kernels {
	k := &Kernels{
		Name:                 "generic",
		Copy:                 genericCopy,
		CopyNT:               genericCopy,
		Transpose32Tiles:     genericTranspose32Tiles,
		Transpose32FromTiles: genericTranspose32FromTiles,
		TileKernels:          func(int) bool { return false },
		Fill:                 genericFill,
		Fence:                func() {},
		Prefetch:             func([]byte) {},
		one:                  genericSingles(),
	}
	k.transposes(func(w int, _ Stores) TransposeFunc {
		return [...]TransposeFunc{1: genericTranspose8, 2: genericTranspose16, 4: genericTranspose32}[w]
	})
	return k
}

func genericCopy(dst, src []byte) {
	copy(dst[:len(src):len(dst)], src)
}

// maxN bounds element counts, so that no byte length computed from one (at most
// 8 bytes an element) overflows an int: larger counts cannot fit in memory anyway.
const maxN = math.MaxInt / 8

// checkN panics if n is negative or beyond maxN.
func checkN(n int) {
	if n < 0 || n > maxN {
		panic(fmt.Sprintf("simd: length %d out of range", n))
	}
}

// SWAR lane masks. Names say which lanes of a uint64 they select.
const (
	m8lo  = 0x00ff00ff00ff00ff // low byte of each 16-bit lane
	m8hi  = 0xff00ff00ff00ff00 // high byte of each 16-bit lane
	m16lo = 0x0000ffff0000ffff // low 16 bits of each 32-bit lane
	m16hi = 0xffff0000ffff0000 // high 16 bits of each 32-bit lane
	m32lo = 0x00000000ffffffff // low 32-bit lane
	m32hi = 0xffffffff00000000 // high 32-bit lane
)

func genericInterleave16(dst, a, b []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	a = a[: 2*n : len(a)]
	b = b[: 2*n : len(b)]
	for len(a) >= 64 && len(b) >= 64 && len(dst) >= 128 {
		interleave16Block((*[128]byte)(dst), (*[64]byte)(a), (*[64]byte)(b))
		a, b, dst = a[64:], b[64:], dst[128:]
	}
	for len(a) >= 2 && len(b) >= 2 && len(dst) >= 4 {
		le.PutUint32(dst, uint32(le.Uint16(a))|uint32(le.Uint16(b))<<16)
		a, b, dst = a[2:], b[2:], dst[4:]
	}
}

// The portable kernels do the bulk of their work in blocks of a few cache
// lines, each a function of its own over array pointers (marked noinline so
// that it stays one): with only those pointers and a counter live, the
// compiler keeps the SWAR words in registers and drops the bounds checks.
// Written inline in the kernels' loops, the same code spilled and ran
// slower (BenchmarkInterleave16).

// interleave16Block is Interleave16 of 32 elements, with 64-bit loads and
// stores (SWAR).
//
//go:noinline
func interleave16Block(d *[128]byte, a, b *[64]byte) {
	for k := range 4 {
		o := 16 * k
		w0, w1 := zip16(le.Uint64(a[o:]), le.Uint64(b[o:]))
		w2, w3 := zip16(le.Uint64(a[o+8:]), le.Uint64(b[o+8:]))
		le.PutUint64(d[2*o:], w0)
		le.PutUint64(d[2*o+8:], w1)
		le.PutUint64(d[2*o+16:], w2)
		le.PutUint64(d[2*o+24:], w3)
	}
}

// deinterleave16Block is Deinterleave16 of 32 elements.
//
//go:noinline
func deinterleave16Block(a, b *[64]byte, s *[128]byte) {
	for k := range 4 {
		o := 16 * k
		x0, y0 := unzip16(le.Uint64(s[2*o:]), le.Uint64(s[2*o+8:]))
		x1, y1 := unzip16(le.Uint64(s[2*o+16:]), le.Uint64(s[2*o+24:]))
		le.PutUint64(a[o:], x0)
		le.PutUint64(a[o+8:], x1)
		le.PutUint64(b[o:], y0)
		le.PutUint64(b[o+8:], y1)
	}
}

// zip16 interleaves the 16-bit lanes of x = [x0 x1 x2 x3] and y (lane 0 is
// the least significant): lo = [x0 y0 x1 y1], hi = [x2 y2 x3 y3].
func zip16(x, y uint64) (lo, hi uint64) {
	e, o := pair16(x, y) // [x0 y0 x2 y2], [x1 y1 x3 y3]
	return zip32(e, o)
}

// unzip16 is the inverse of zip16.
func unzip16(lo, hi uint64) (x, y uint64) {
	e, o := zip32(lo, hi) // [x0 y0 x2 y2], [x1 y1 x3 y3]
	return pair16(e, o)
}

func genericDeinterleave16(a, b, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	a = a[: 2*n : len(a)]
	b = b[: 2*n : len(b)]
	for len(a) >= 64 && len(b) >= 64 && len(src) >= 128 {
		deinterleave16Block((*[64]byte)(a), (*[64]byte)(b), (*[128]byte)(src))
		a, b, src = a[64:], b[64:], src[128:]
	}
	for len(a) >= 2 && len(b) >= 2 && len(src) >= 4 {
		v := le.Uint32(src)
		le.PutUint16(a, uint16(v))
		le.PutUint16(b, uint16(v>>16))
		a, b, src = a[2:], b[2:], src[4:]
	}
}

// Interleave8x4 transposes 4×8 byte blocks: rows r0..r3 (8 bytes each) to
// eight 4-byte columns, in three SWAR steps (bytes to 16-bit pairs, pairs to
// 32-bit quads, quads to words). Deinterleave8x4 runs the steps backwards.

func genericInterleave8x4(dst, r0, r1, r2, r3 []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	r0, r1, r2, r3 = r0[:n:len(r0)], r1[:n:len(r1)], r2[:n:len(r2)], r3[:n:len(r3)]
	i := 0
	for ; i <= n-32; i += 32 {
		interleave8x4Block((*[128]byte)(dst[4*i:]), (*[32]byte)(r0[i:]), (*[32]byte)(r1[i:]), (*[32]byte)(r2[i:]), (*[32]byte)(r3[i:]))
	}
	for ; i < n; i++ {
		dst[4*i] = r0[i]
		dst[4*i+1] = r1[i]
		dst[4*i+2] = r2[i]
		dst[4*i+3] = r3[i]
	}
}

func genericDeinterleave8x4(r0, r1, r2, r3, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	r0, r1, r2, r3 = r0[:n:len(r0)], r1[:n:len(r1)], r2[:n:len(r2)], r3[:n:len(r3)]
	i := 0
	for ; i <= n-32; i += 32 {
		deinterleave8x4Block((*[32]byte)(r0[i:]), (*[32]byte)(r1[i:]), (*[32]byte)(r2[i:]), (*[32]byte)(r3[i:]), (*[128]byte)(src[4*i:]))
	}
	for ; i < n; i++ {
		r0[i] = src[4*i]
		r1[i] = src[4*i+1]
		r2[i] = src[4*i+2]
		r3[i] = src[4*i+3]
	}
}

// interleave8x4Block is Interleave8x4 of 32 elements.
//
//go:noinline
func interleave8x4Block(d *[128]byte, r0, r1, r2, r3 *[32]byte) {
	for k := range 4 {
		o := 8 * k
		a, b := pair8(le.Uint64(r0[o:]), le.Uint64(r1[o:]))
		c, e := pair8(le.Uint64(r2[o:]), le.Uint64(r3[o:]))
		f, g := pair16(a, c)
		h, j := pair16(b, e)
		w := (*[32]byte)(d[4*o:])
		le.PutUint64(w[0:], f&m32lo|h<<32)
		le.PutUint64(w[8:], g&m32lo|j<<32)
		le.PutUint64(w[16:], f>>32|h&m32hi)
		le.PutUint64(w[24:], g>>32|j&m32hi)
	}
}

// deinterleave8x4Block is Deinterleave8x4 of 32 elements.
//
//go:noinline
func deinterleave8x4Block(r0, r1, r2, r3 *[32]byte, s *[128]byte) {
	for k := range 4 {
		o := 8 * k
		w := (*[32]byte)(s[4*o:])
		f, h := zip32(le.Uint64(w[0:]), le.Uint64(w[16:]))
		g, j := zip32(le.Uint64(w[8:]), le.Uint64(w[24:]))
		a, c := pair16(f, g) // pair8 and pair16 are their own inverses
		b, e := pair16(h, j)
		x0, x1 := pair8(a, b)
		x2, x3 := pair8(c, e)
		le.PutUint64(r0[o:], x0)
		le.PutUint64(r1[o:], x1)
		le.PutUint64(r2[o:], x2)
		le.PutUint64(r3[o:], x3)
	}
}

// Two f32 lanes per uint64: the f32→bf16 rounding of [F32ToBF16Bits] done on
// both lanes at once. It is exact for lanes that are not NaN; the kernels
// test each group with nan2 and fall back to the scalar code for groups that
// hold a NaN.
const (
	f32abs2    = 0x7fffffff7fffffff
	f32nanBias = 0x007fffff007fffff // 0x7f800001 + bias = 0x80000000
	f32sign2   = 0x8000000080000000
	bf16rnd2   = 0x00007fff00007fff
	bf16lsb2   = 0x0000000100000001
)

// nan2 is non-zero if either f32 lane of x is a NaN. The per-lane sums stay
// below 2^32, so no carry crosses lanes.
func nan2(x uint64) uint64 { return (x&f32abs2 + f32nanBias) & f32sign2 }

// round2 rounds both non-NaN f32 lanes of x to bf16 (to nearest, ties to
// even), leaving the bf16 bits in the upper half of each lane. A non-NaN lane
// is at most 0xff800000, so adding at most 0x8000 does not carry out of it.
func round2(x uint64) uint64 { return x + bf16rnd2 + (x>>16)&bf16lsb2 }

func genericF32ToBF16(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 2*n : len(dst)]
	src = src[: 4*n : len(src)]
	// Eight elements at a time; a group with a NaN goes element by element.
	for len(dst) >= 16 && len(src) >= 32 {
		x0, x1 := le.Uint64(src), le.Uint64(src[8:])
		x2, x3 := le.Uint64(src[16:]), le.Uint64(src[24:])
		if nan2(x0)|nan2(x1)|nan2(x2)|nan2(x3) == 0 {
			le.PutUint64(dst, pack2bf16(round2(x0), round2(x1)))
			le.PutUint64(dst[8:], pack2bf16(round2(x2), round2(x3)))
		} else {
			for i := 0; i < 8; i++ {
				le.PutUint16(dst[2*i:], F32ToBF16Bits(le.Uint32(src[4*i:])))
			}
		}
		dst, src = dst[16:], src[32:]
	}
	for len(dst) >= 2 && len(src) >= 4 {
		le.PutUint16(dst, F32ToBF16Bits(le.Uint32(src)))
		dst, src = dst[2:], src[4:]
	}
}

// pack2bf16 gathers the upper halves of the four 32-bit lanes of r0 and r1
// (r0 first) into one word.
func pack2bf16(r0, r1 uint64) uint64 {
	p0 := (r0>>16)&0xffff | (r0>>32)&0xffff0000
	p1 := (r1>>16)&0xffff | (r1>>32)&0xffff0000
	return p0 | p1<<32
}

// f32ToF16Norm converts f like [F32ToF16Bits] when the result is a normal
// binary16 number, and reports false otherwise.
func f32ToF16Norm(f uint32) (uint16, bool) {
	abs := f & 0x7fffffff
	v := abs - 0x38000000 // rebias exponent from 127 to 15
	return uint16(f>>16)&0x8000 | uint16((v+0xfff+(v>>13)&1)>>13), abs-0x38800000 < 0x477ff000-0x38800000
}

// f16ToF32Norm converts h like [F16BitsToF32] when h is a normal number, and
// reports false otherwise.
func f16ToF32Norm(h uint16) (uint32, bool) {
	e := h & 0x7c00
	return uint32(h&0x8000)<<16 | (uint32(h&0x7fff)<<13 + 112<<23), e != 0 && e != 0x7c00
}

func genericF32ToF16(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 2*n : len(dst)]
	src = src[: 4*n : len(src)]
	// Four elements at a time; a group with a value that is not a normal
	// binary16 number goes element by element.
	for len(dst) >= 8 && len(src) >= 16 {
		h0, ok0 := f32ToF16Norm(le.Uint32(src))
		h1, ok1 := f32ToF16Norm(le.Uint32(src[4:]))
		h2, ok2 := f32ToF16Norm(le.Uint32(src[8:]))
		h3, ok3 := f32ToF16Norm(le.Uint32(src[12:]))
		if ok0 && ok1 && ok2 && ok3 {
			le.PutUint64(dst, uint64(h0)|uint64(h1)<<16|uint64(h2)<<32|uint64(h3)<<48)
		} else {
			for i := 0; i < 4; i++ {
				le.PutUint16(dst[2*i:], F32ToF16Bits(le.Uint32(src[4*i:])))
			}
		}
		dst, src = dst[8:], src[16:]
	}
	for len(dst) >= 2 && len(src) >= 4 {
		le.PutUint16(dst, F32ToF16Bits(le.Uint32(src)))
		dst, src = dst[2:], src[4:]
	}
}

func genericBF16ToF32(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	src = src[: 2*n : len(src)]
	for len(dst) >= 32 && len(src) >= 16 {
		x0, x1 := le.Uint64(src), le.Uint64(src[8:])
		le.PutUint64(dst, (x0<<16)&0xffff0000|(x0<<32)&0xffff000000000000)
		le.PutUint64(dst[8:], (x0>>16)&0xffff0000|x0&0xffff000000000000)
		le.PutUint64(dst[16:], (x1<<16)&0xffff0000|(x1<<32)&0xffff000000000000)
		le.PutUint64(dst[24:], (x1>>16)&0xffff0000|x1&0xffff000000000000)
		dst, src = dst[32:], src[16:]
	}
	for len(dst) >= 4 && len(src) >= 2 {
		le.PutUint32(dst, uint32(le.Uint16(src))<<16)
		dst, src = dst[4:], src[2:]
	}
}

func genericF16ToF32(dst, src []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	src = src[: 2*n : len(src)]
	for len(dst) >= 16 && len(src) >= 8 {
		x := le.Uint64(src)
		f0, ok0 := f16ToF32Norm(uint16(x))
		f1, ok1 := f16ToF32Norm(uint16(x >> 16))
		f2, ok2 := f16ToF32Norm(uint16(x >> 32))
		f3, ok3 := f16ToF32Norm(uint16(x >> 48))
		if ok0 && ok1 && ok2 && ok3 {
			le.PutUint64(dst, uint64(f0)|uint64(f1)<<32)
			le.PutUint64(dst[8:], uint64(f2)|uint64(f3)<<32)
		} else {
			for i := 0; i < 4; i++ {
				le.PutUint32(dst[4*i:], F16BitsToF32(uint16(x>>(16*i))))
			}
		}
		dst, src = dst[16:], src[8:]
	}
	for len(dst) >= 4 && len(src) >= 2 {
		le.PutUint32(dst, F16BitsToF32(le.Uint16(src)))
		dst, src = dst[4:], src[2:]
	}
}

func genericF32ToBF16Interleave(dst, a, b []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	a = a[: 4*n : len(a)]
	b = b[: 4*n : len(b)]
	for len(dst) >= 64 && len(a) >= 64 && len(b) >= 64 {
		f32ToBF16InterleaveBlock((*[64]byte)(dst), (*[64]byte)(a), (*[64]byte)(b))
		dst, a, b = dst[64:], a[64:], b[64:]
	}
	for len(dst) >= 4 && len(a) >= 4 && len(b) >= 4 {
		lo := F32ToBF16Bits(le.Uint32(a))
		hi := F32ToBF16Bits(le.Uint32(b))
		le.PutUint32(dst, uint32(lo)|uint32(hi)<<16)
		dst, a, b = dst[4:], a[4:], b[4:]
	}
}

// f32ToBF16InterleaveBlock is F32ToBF16Interleave of 16 pairs, four at a
// time; four pairs with a NaN go element by element.
//
//go:noinline
func f32ToBF16InterleaveBlock(d, a, b *[64]byte) {
	for k := range 4 {
		o := 16 * k
		x0, x1 := le.Uint64(a[o:]), le.Uint64(a[o+8:])
		y0, y1 := le.Uint64(b[o:]), le.Uint64(b[o+8:])
		if nan2(x0)|nan2(x1)|nan2(y0)|nan2(y1) == 0 {
			le.PutUint64(d[o:], (round2(x0)>>16)&m16lo|round2(y0)&m16hi)
			le.PutUint64(d[o+8:], (round2(x1)>>16)&m16lo|round2(y1)&m16hi)
			continue
		}
		for i := range 4 {
			lo := F32ToBF16Bits(le.Uint32(a[o+4*i:]))
			hi := F32ToBF16Bits(le.Uint32(b[o+4*i:]))
			le.PutUint32(d[o+4*i:], uint32(lo)|uint32(hi)<<16)
		}
	}
}

func genericF32ToF16Interleave(dst, a, b []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	a = a[: 4*n : len(a)]
	b = b[: 4*n : len(b)]
	for len(dst) >= 8 && len(a) >= 8 && len(b) >= 8 {
		lo0, ok0 := f32ToF16Norm(le.Uint32(a))
		hi0, ok1 := f32ToF16Norm(le.Uint32(b))
		lo1, ok2 := f32ToF16Norm(le.Uint32(a[4:]))
		hi1, ok3 := f32ToF16Norm(le.Uint32(b[4:]))
		if ok0 && ok1 && ok2 && ok3 {
			le.PutUint64(dst, uint64(lo0)|uint64(hi0)<<16|uint64(lo1)<<32|uint64(hi1)<<48)
		} else {
			for i := 0; i < 2; i++ {
				le.PutUint16(dst[4*i:], F32ToF16Bits(le.Uint32(a[4*i:])))
				le.PutUint16(dst[4*i+2:], F32ToF16Bits(le.Uint32(b[4*i:])))
			}
		}
		dst, a, b = dst[8:], a[8:], b[8:]
	}
	for len(dst) >= 4 && len(a) >= 4 && len(b) >= 4 {
		lo := F32ToF16Bits(le.Uint32(a))
		hi := F32ToF16Bits(le.Uint32(b))
		le.PutUint32(dst, uint32(lo)|uint32(hi)<<16)
		dst, a, b = dst[4:], a[4:], b[4:]
	}
}

func genericBF16DeinterleaveToF32(a, b, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	a = a[: 4*n : len(a)]
	b = b[: 4*n : len(b)]
	for len(src) >= 16 && len(a) >= 16 && len(b) >= 16 {
		x0, x1 := le.Uint64(src), le.Uint64(src[8:])
		le.PutUint64(a, (x0<<16)&0xffff0000ffff0000)
		le.PutUint64(a[8:], (x1<<16)&0xffff0000ffff0000)
		le.PutUint64(b, x0&0xffff0000ffff0000)
		le.PutUint64(b[8:], x1&0xffff0000ffff0000)
		src, a, b = src[16:], a[16:], b[16:]
	}
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
