package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Block sizes (elements per loop iteration) are repeated in the Go wrappers
// (asm_amd64.go); the tests check every length around them.

func genCopy(x isa, m mode) {
	chunk := 4 * x.w
	name := fname("copy", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s copies n*%d bytes from src to dst.%s", name, chunk, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	m.loop(n, 1, []stream{{dst, chunk, true}, {src, chunk, false}}, func(int) {
		if m == streaming {
			PREFETCHNTA(at(src, 0x200))
			PREFETCHNTA(at(src, 0x240))
			if x.w == 64 {
				PREFETCHNTA(at(src, 0x280))
				PREFETCHNTA(at(src, 0x2c0))
			}
		}
		copyVectors(x, 4, dst, src, m)
	})
	finish(m)
}

// genCopyHalves emits AVX-512's batched streaming copy in 32-byte vectors, eight an
// iteration (the bytes of copyRowsNTAVX512's four), for the long rows package simd
// gives it (see halvesFrom there).
func genCopyHalves() {
	x, m := avx512, batchedStreaming
	name := fname("copyHalves", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s copies n*%d bytes from src to dst in 32-byte vectors.%s", name, 4*x.w, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	m.loop(n, 1, []stream{{dst, 4 * x.w, true}, {src, 4 * x.w, false}}, func(int) {
		copyVectors(avx2, 8, dst, src, m)
	})
	finish(m)
}

// copyVectors loads k vectors of x from src and stores them to dst.
func copyVectors(x isa, k int, dst, src reg.GPVirtual, m mode) {
	v := make([]reg.VecVirtual, k)
	for i := range v {
		v[i] = x.vec()
		x.load(at(src, i*x.w), v[i])
	}
	for i := range v {
		x.store(v[i], at(dst, i*x.w), m)
	}
}

// genCopyString emits copyString, REP MOVSB: the string copy the CPU's microcode runs,
// which on some CPUs streams long copies faster than a loop of non-temporal stores
// (see useStringCopy in package simd).
func genCopyString() {
	TEXT("copyString", NOSPLIT, "func(dst, src *byte, n int)")
	Pragma("noescape")
	Doc("copyString copies n bytes from src to dst with REP MOVSB; the ranges must not overlap.")
	Load(Param("dst"), reg.RDI)
	Load(Param("src"), reg.RSI)
	Load(Param("n"), reg.RCX)
	Instruction(&ir.Instruction{Opcode: "REP; MOVSB"})
	RET()
}

func genFill(x isa) {
	chunk := 4 * x.w
	TEXT("fill"+x.name, NOSPLIT, "func(dst, pat *byte, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("fill%s stores the %d bytes at pat n*4 times to dst.", x.name, x.w))
	dst, pat, n := param("dst"), param("pat"), param("n")
	v := x.vec()
	x.load(at(pat, 0), v)
	ordinary.loop(n, 1, []stream{{dst, chunk, true}}, func(int) {
		for i := 0; i < 4; i++ {
			x.store(v, at(dst, i*x.w), ordinary)
		}
	})
	finish(ordinary)
}

// Interleave16: AVX2 16 elements per step, AVX-512 32; unrolled twice.
func genInterleave16(x isa, m mode) {
	e := x.w / 2 // elements per step
	name := fname("interleave16", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, a, b *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s interleaves n*%d 16-bit elements of a and b into dst.%s", name, 2*e, m.doc()))
	dst, a, b, n := param("dst"), param("a"), param("b"), param("n")
	var idx reg.VecVirtual
	if x.w == 64 {
		idx = x.loadTable("permq04152637", qwordTable(0, 4, 1, 5, 2, 6, 3, 7))
	}
	m.loop(n, 2, []stream{{dst, 4 * e, true}, {a, 2 * e, false}, {b, 2 * e, false}}, func(k int) {
		A, B, L, H := x.vec(), x.vec(), x.vec(), x.vec()
		if x.w == 32 {
			VMOVDQU(at(a, k*2*e), A)
			VMOVDQU(at(b, k*2*e), B)
			VPUNPCKLWD(B, A, L)
			VPUNPCKHWD(B, A, H)
			O0, O1 := x.vec(), x.vec()
			VPERM2I128(U8(0x20), H, L, O0)
			VPERM2I128(U8(0x31), H, L, O1)
			L, H = O0, O1
		} else {
			VPERMQ(at(a, k*2*e), idx, A)
			VPERMQ(at(b, k*2*e), idx, B)
			VPUNPCKLWD(B, A, L)
			VPUNPCKHWD(B, A, H)
		}
		x.store(L, at(dst, k*4*e), m)
		x.store(H, at(dst, k*4*e+x.w), m)
	})
	finish(m)
}

// packHigh16 packs the low 16 bits of the 32-bit elements of v0 (first) and
// v1 into one vector, in order. The upper 16 bits of every element must be
// zero. v0 is overwritten with the result.
func packLow16(x isa, v0, v1 reg.VecVirtual, idx reg.VecVirtual) {
	VPACKUSDW(v1, v0, v0)
	if x.w == 32 {
		VPERMQ(U8(0xd8), v0, v0)
	} else {
		VPERMQ(v0, idx, v0)
	}
}

func packIdx(x isa) reg.VecVirtual {
	if x.w == 64 {
		return x.loadTable("permq02461357", qwordTable(0, 2, 4, 6, 1, 3, 5, 7))
	}
	return nil
}

// Deinterleave16: AVX2 16 elements per step, AVX-512 32.
func genDeinterleave16(x isa, m mode) {
	e := x.w / 2
	name := fname("deinterleave16", x, m)
	TEXT(name, NOSPLIT, m.sig("func(a, b, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s splits n*%d 32-bit words of src into their low (a) and high (b) 16-bit halves.%s", name, 2*e, m.doc()))
	a, b, src, n := param("a"), param("b"), param("src"), param("n")
	mask := x.broadcast32(0xffff)
	idx := packIdx(x)
	m.loop(n, 2, []stream{{a, 2 * e, true}, {b, 2 * e, true}, {src, 4 * e, false}}, func(k int) {
		V0, V1 := x.vec(), x.vec()
		x.load(at(src, k*4*e), V0)
		x.load(at(src, k*4*e+x.w), V1)
		A0, A1 := x.vec(), x.vec()
		x.and(mask, V0, A0)
		x.and(mask, V1, A1)
		VPSRLD(U8(16), V0, V0)
		VPSRLD(U8(16), V1, V1)
		packLow16(x, A0, A1, idx)
		packLow16(x, V0, V1, idx)
		x.store(A0, at(a, k*2*e), m)
		x.store(V0, at(b, k*2*e), m)
	})
	finish(m)
}

// genExtract16 emits deinterleave16 for one of the halves (high or low): the pair
// untiling into rows whose two destinations start at different distances past a
// line, which one loop cannot stream (their heads differ), runs it once for each.
func genExtract16(x isa, m mode, high bool) {
	e := x.w / 2
	base := "extract16Lo"
	if high {
		base = "extract16Hi"
	}
	name := fname(base, x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s stores the low (Lo) or high (Hi) 16-bit halves of n*%d 32-bit words of src to dst.%s", name, 2*e, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	mask := x.broadcast32(0xffff)
	idx := packIdx(x)
	m.loop(n, 2, []stream{{dst, 2 * e, true}, {src, 4 * e, false}}, func(k int) {
		V0, V1 := x.vec(), x.vec()
		x.load(at(src, k*4*e), V0)
		x.load(at(src, k*4*e+x.w), V1)
		if high {
			VPSRLD(U8(16), V0, V0)
			VPSRLD(U8(16), V1, V1)
		} else {
			x.and(mask, V0, V0)
			x.and(mask, V1, V1)
		}
		packLow16(x, V0, V1, idx)
		x.store(V0, at(dst, k*2*e), m)
	})
	finish(m)
}

// genBF16ExtractToF32 is bf16DeinterleaveToF32 for one of the halves, as genExtract16.
func genBF16ExtractToF32(x isa, m mode, high bool) {
	e := x.w / 4
	base := "bf16ExtractLoToF32"
	if high {
		base = "bf16ExtractHiToF32"
	}
	name := fname(base, x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens the low (Lo) or high (Hi) bf16 halves of n*%d 32-bit words of src to f32.%s", name, 2*e, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	var hi reg.VecVirtual
	if high {
		hi = x.broadcast32(0xffff0000)
	}
	m.loop(n, 2, []stream{{dst, 4 * e, true}, {src, 4 * e, false}}, func(k int) {
		V := x.vec()
		x.load(at(src, k*4*e), V)
		if high {
			x.and(hi, V, V)
		} else {
			VPSLLD(U8(16), V, V)
		}
		x.store(V, at(dst, k*4*e), m)
	})
	finish(m)
}

// bf16Consts are the constants of the integer round-to-nearest-even f32→bf16
// conversion.
type bf16Consts struct{ one, bias, sign, qnan reg.VecVirtual }

func newBF16Consts(x isa) bf16Consts {
	return bf16Consts{x.broadcast32(1), x.broadcast32(0x7fff), x.broadcast32(0x80000000), x.broadcast32(0x7fc00000)}
}

// roundBF16 returns a vector whose 32-bit elements hold, in their upper 16
// bits, the bf16 conversion of the f32 elements of v:
//
//	NaN:   v&0x80000000 | 0x7fc00000      (the quiet NaN with v's sign, as XLA converts)
//	other: v + 0x7fff + ((v >> 16) & 1)  (round to nearest even; overflow → Inf)
func roundBF16(x isa, c bf16Consts, v reg.VecVirtual) reg.VecVirtual {
	t := x.vec()
	VPSRLD(U8(16), v, t)
	x.and(c.one, t, t)
	VPADDD(c.bias, t, t)
	VPADDD(v, t, t)
	if x.w == 64 {
		k := K()
		VCMPPS(U8(3), v, v, k) // unordered: NaN
		VPANDD(c.sign, v, k, t)
		VPORD(c.qnan, t, k, t)
	} else {
		m, q := x.vec(), x.vec()
		VCMPPS(U8(3), v, v, m)
		VPAND(c.sign, v, q)
		VPOR(c.qnan, q, q)
		VPBLENDVB(m, q, t, t)
	}
	return t
}

// F32ToBF16Interleave: AVX2 8 elements per step, AVX-512 16; unrolled twice.
func genF32ToBF16Interleave(x isa, m mode) {
	e := x.w / 4
	name := fname("f32ToBF16Interleave", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, a, b *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s converts n*%d f32 elements of a and b to bf16 and interleaves them into dst.%s", name, 2*e, m.doc()))
	dst, a, b, n := param("dst"), param("a"), param("b"), param("n")
	c := newBF16Consts(x)
	var kOdd reg.Register
	if x.w == 64 {
		g := GP32()
		MOVL(U32(0xaaaaaaaa), g)
		kOdd = K()
		KMOVD(g, kOdd)
	}
	m.loop(n, 2, []stream{{dst, 4 * e, true}, {a, 4 * e, false}, {b, 4 * e, false}}, func(k int) {
		A, B := x.vec(), x.vec()
		x.load(at(a, k*4*e), A)
		x.load(at(b, k*4*e), B)
		ra := roundBF16(x, c, A)
		rb := roundBF16(x, c, B)
		VPSRLD(U8(16), ra, ra)
		if x.w == 64 {
			VPBLENDMW(rb, ra, kOdd, ra)
		} else {
			VPBLENDW(U8(0xaa), rb, ra, ra)
		}
		x.store(ra, at(dst, k*4*e), m)
	})
	finish(m)
}

// F32ToBF16: AVX2 16 elements per step, AVX-512 32.
func genF32ToBF16(x isa, m mode) {
	e := x.w / 2
	name := fname("f32ToBF16", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s converts n*%d f32 elements of src to bf16.%s", name, e, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	c := newBF16Consts(x)
	var idx reg.VecVirtual
	if x.w == 64 {
		w := make([]uint16, 32)
		for i := range w {
			w[i] = uint16(2*i + 1)
		}
		idx = x.loadTable("oddwords", wordTable(w...))
	}
	m.loop(n, 1, []stream{{dst, 2 * e, true}, {src, 4 * e, false}}, func(int) {
		V0, V1 := x.vec(), x.vec()
		x.load(at(src, 0), V0)
		x.load(at(src, x.w), V1)
		r0 := roundBF16(x, c, V0)
		r1 := roundBF16(x, c, V1)
		if x.w == 64 {
			VPERMT2W(r1, idx, r0)
		} else {
			VPSRLD(U8(16), r0, r0)
			VPSRLD(U8(16), r1, r1)
			packLow16(x, r0, r1, nil)
		}
		x.store(r0, at(dst, 0), m)
	})
	finish(m)
}

// BF16ToF32: AVX2 8 elements per step, AVX-512 16; unrolled twice.
func genBF16ToF32(x isa, m mode) {
	e := x.w / 4
	name := fname("bf16ToF32", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens n*%d bf16 elements of src to f32.%s", name, 2*e, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	m.loop(n, 2, []stream{{dst, 4 * e, true}, {src, 2 * e, false}}, func(k int) {
		V := x.vec()
		VPMOVZXWD(at(src, k*2*e), V)
		VPSLLD(U8(16), V, V)
		x.store(V, at(dst, k*4*e), m)
	})
	finish(m)
}

// BF16DeinterleaveToF32: AVX2 8 elements per step, AVX-512 16; unrolled twice.
func genBF16DeinterleaveToF32(x isa, m mode) {
	e := x.w / 4
	name := fname("bf16DeinterleaveToF32", x, m)
	TEXT(name, NOSPLIT, m.sig("func(a, b, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens the low (a) and high (b) bf16 halves of n*%d 32-bit words of src to f32.%s", name, 2*e, m.doc()))
	a, b, src, n := param("a"), param("b"), param("src"), param("n")
	hi := x.broadcast32(0xffff0000)
	m.loop(n, 2, []stream{{a, 4 * e, true}, {b, 4 * e, true}, {src, 4 * e, false}}, func(k int) {
		V, A := x.vec(), x.vec()
		x.load(at(src, k*4*e), V)
		VPSLLD(U8(16), V, A)
		x.and(hi, V, V)
		x.store(A, at(a, k*4*e), m)
		x.store(V, at(b, k*4*e), m)
	})
	finish(m)
}

// laneTranspose4 transposes the 128-bit lanes of four zmm registers in place:
// afterwards r[j] lane i holds what r[i] lane j held.
func laneTranspose4(r []reg.VecVirtual) {
	s0, s1, s2, s3 := ZMM(), ZMM(), ZMM(), ZMM()
	VSHUFI32X4(U8(0x44), r[1], r[0], s0)
	VSHUFI32X4(U8(0x44), r[3], r[2], s1)
	VSHUFI32X4(U8(0xee), r[1], r[0], s2)
	VSHUFI32X4(U8(0xee), r[3], r[2], s3)
	VSHUFI32X4(U8(0x88), s1, s0, r[0])
	VSHUFI32X4(U8(0xdd), s1, s0, r[1])
	VSHUFI32X4(U8(0x88), s3, s2, r[2])
	VSHUFI32X4(U8(0xdd), s3, s2, r[3])
}

// Interleave8x4: AVX2 32 elements per step, AVX-512 64.
func genInterleave8x4(x isa, m mode) {
	e := x.w
	name := fname("interleave8x4", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, r0, r1, r2, r3 *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s interleaves n*%d bytes of r0..r3 into 32-bit quads of dst.%s", name, e, m.doc()))
	dst := param("dst")
	rp := []reg.GPVirtual{param("r0"), param("r1"), param("r2"), param("r3")}
	n := param("n")
	ss := []stream{{dst, 4 * e, true}}
	for _, p := range rp {
		ss = append(ss, stream{p, e, false})
	}
	var perm reg.VecVirtual
	if x.w == 64 {
		perm = x.loadTable("permd048c", dwordTable(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15))
	}
	m.loop(n, 1, ss, func(int) {
		var R [4]reg.VecVirtual
		for i := range R {
			R[i] = x.vec()
			if x.w == 64 {
				VPERMD(at(rp[i], 0), perm, R[i])
			} else {
				x.load(at(rp[i], 0), R[i])
			}
		}
		var out []reg.VecVirtual
		if x.w == 64 {
			out = interleaveQuadsPermuted(x, R)
		} else {
			out = interleaveQuads(x, R)
		}
		for i, v := range out {
			x.store(v, at(dst, i*x.w), m)
		}
	})
	finish(m)
}

// interleaveQuadsPermuted is interleaveQuads for zmm rows whose 32-bit words were
// loaded through the permutation 0, 4, 8, 12, 1, 5, … (word 4L+k of a register is word
// 4k+L of the row): lane L then holds columns 4L+16k…4L+16k+3 at its word k, and the
// in-lane unpacks leave the quads in order without the lane transpose (12 shuffles
// where interleaveQuads takes 16; bench/design-notes.md).
func interleaveQuadsPermuted(x isa, R [4]reg.VecVirtual) []reg.VecVirtual {
	t0, t1, t2, t3 := x.vec(), x.vec(), x.vec(), x.vec()
	VPUNPCKLBW(R[1], R[0], t0)
	VPUNPCKHBW(R[1], R[0], t1)
	VPUNPCKLBW(R[3], R[2], t2)
	VPUNPCKHBW(R[3], R[2], t3)
	VPUNPCKLWD(t2, t0, R[0]) // columns 0..15
	VPUNPCKHWD(t2, t0, R[1]) // 16..31
	VPUNPCKLWD(t3, t1, R[2]) // 32..47
	VPUNPCKHWD(t3, t1, R[3]) // 48..63
	return R[:]
}

// interleaveQuads returns the 32-bit quads of R's bytes in order, 4*x.w bytes in four
// vectors: byte k of quad i is byte i of R[k]. R's registers are reused.
func interleaveQuads(x isa, R [4]reg.VecVirtual) []reg.VecVirtual {
	t0, t1, t2, t3 := x.vec(), x.vec(), x.vec(), x.vec()
	VPUNPCKLBW(R[1], R[0], t0)
	VPUNPCKHBW(R[1], R[0], t1)
	VPUNPCKLBW(R[3], R[2], t2)
	VPUNPCKHBW(R[3], R[2], t3)
	u := []reg.VecVirtual{R[0], R[1], R[2], R[3]}
	VPUNPCKLWD(t2, t0, u[0]) // per lane: quads 0..3
	VPUNPCKHWD(t2, t0, u[1]) // 4..7
	VPUNPCKLWD(t3, t1, u[2]) // 8..11
	VPUNPCKHWD(t3, t1, u[3]) // 12..15
	if x.w == 64 {
		laneTranspose4(u)
		return u
	}
	o := []reg.VecVirtual{t0, t1, t2, t3}
	VPERM2I128(U8(0x20), u[1], u[0], o[0])
	VPERM2I128(U8(0x20), u[3], u[2], o[1])
	VPERM2I128(U8(0x31), u[1], u[0], o[2])
	VPERM2I128(U8(0x31), u[3], u[2], o[3])
	return o
}

// Deinterleave8x4: AVX2 32 elements per step, AVX-512 64.
func genDeinterleave8x4(x isa, m mode) {
	e := x.w
	name := fname("deinterleave8x4", x, m)
	TEXT(name, NOSPLIT, m.sig("func(r0, r1, r2, r3, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s splits n*%d 32-bit quads of src into bytes r0..r3.%s", name, e, m.doc()))
	rp := []reg.GPVirtual{param("r0"), param("r1"), param("r2"), param("r3")}
	src, n := param("src"), param("n")
	ss := []stream{{src, 4 * e, false}}
	for _, p := range rp {
		ss = append(ss, stream{p, e, true})
	}
	shuf, perm := quadTables(x)
	m.loop(n, 1, ss, func(int) {
		V := deinterleaveQuads(x, shuf, perm, src)
		for i := range V {
			x.store(V[i], at(rp[i], 0), m)
		}
	})
	finish(m)
}

// quadTables loads deinterleaveQuads' byte shuffle and dword permutation.
func quadTables(x isa) (shuf, perm reg.VecVirtual) {
	shuf = x.loadTable("groupbytes4", []byte{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15})
	if x.w == 64 {
		perm = x.loadTable("permd048c", dwordTable(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15))
	} else {
		perm = x.loadTable("permd04152637", dwordTable(0, 4, 1, 5, 2, 6, 3, 7))
	}
	return shuf, perm
}

// deinterleaveQuads loads 4*x.w bytes of 32-bit quads at src and returns four
// vectors, byte k of each quad in vector k, in order.
func deinterleaveQuads(x isa, shuf, perm reg.VecVirtual, src reg.GPVirtual) []reg.VecVirtual {
	V := make([]reg.VecVirtual, 4)
	for i := range V {
		V[i] = x.vec()
		x.load(at(src, i*x.w), V[i])
		VPSHUFB(shuf, V[i], V[i])
		VPERMD(V[i], perm, V[i])
	}
	if x.w == 64 {
		laneTranspose4(V)
		return V
	}
	a, b, c, d := x.vec(), x.vec(), x.vec(), x.vec()
	VPUNPCKLQDQ(V[1], V[0], a)
	VPUNPCKHQDQ(V[1], V[0], b)
	VPUNPCKLQDQ(V[3], V[2], c)
	VPUNPCKHQDQ(V[3], V[2], d)
	VPERM2I128(U8(0x20), c, a, V[0])
	VPERM2I128(U8(0x20), d, b, V[1])
	VPERM2I128(U8(0x31), c, a, V[2])
	VPERM2I128(U8(0x31), d, b, V[3])
	return V
}

// half returns the register of half the width of v (ymm→xmm, zmm→ymm).
func half(x isa, v reg.VecVirtual) reg.VecVirtual {
	if x.w == 64 {
		return v.AsY().(reg.VecVirtual)
	}
	return v.AsX().(reg.VecVirtual)
}

// F32ToF16: AVX2 16 elements per step, AVX-512 32. Uses VCVTPS2PH with
// round-to-nearest-even.
func genF32ToF16(x isa, m mode) {
	e := x.w / 2
	name := fname("f32ToF16", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s converts n*%d f32 elements of src to IEEE binary16.%s", name, e, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	m.loop(n, 1, []stream{{dst, 2 * e, true}, {src, 4 * e, false}}, func(int) {
		V0, V1 := x.vec(), x.vec()
		x.load(at(src, 0), V0)
		x.load(at(src, x.w), V1)
		H0, H1 := x.vec(), x.vec()
		VCVTPS2PH(U8(0), V0, half(x, H0))
		VCVTPS2PH(U8(0), V1, half(x, H1))
		if x.w == 64 {
			VINSERTI64X4(U8(1), half(x, H1), H0, H0)
		} else {
			VINSERTI128(U8(1), half(x, H1), H0, H0)
		}
		x.store(H0, at(dst, 0), m)
	})
	finish(m)
}

// F32ToF16Interleave: AVX2 8 elements per step, AVX-512 16; unrolled twice.
func genF32ToF16Interleave(x isa, m mode) {
	e := x.w / 4
	name := fname("f32ToF16Interleave", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, a, b *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s converts n*%d f32 elements of a and b to binary16 and interleaves them into dst.%s", name, 2*e, m.doc()))
	dst, a, b, n := param("dst"), param("a"), param("b"), param("n")
	m.loop(n, 2, []stream{{dst, 4 * e, true}, {a, 4 * e, false}, {b, 4 * e, false}}, func(k int) {
		A, B := x.vec(), x.vec()
		x.load(at(a, k*4*e), A)
		x.load(at(b, k*4*e), B)
		HA, HB := x.vec(), x.vec()
		VCVTPS2PH(U8(0), A, half(x, HA))
		VCVTPS2PH(U8(0), B, half(x, HB))
		VPMOVZXWD(half(x, HA), A)
		VPMOVZXWD(half(x, HB), B)
		VPSLLD(U8(16), B, B)
		x.or(B, A, A)
		x.store(A, at(dst, k*4*e), m)
	})
	finish(m)
}

// F16ToF32: AVX2 8 elements per step, AVX-512 16; unrolled twice.
func genF16ToF32(x isa, m mode) {
	e := x.w / 4
	name := fname("f16ToF32", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens n*%d binary16 elements of src to f32.%s", name, 2*e, m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	m.loop(n, 2, []stream{{dst, 4 * e, true}, {src, 2 * e, false}}, func(k int) {
		V := x.vec()
		VCVTPH2PS(at(src, k*2*e), V)
		x.store(V, at(dst, k*4*e), m)
	})
	finish(m)
}

var _ = Mem{}
