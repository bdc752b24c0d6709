package main

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// f8Spec is an f8 format's constants for the integer rounding of f32 (see simd/f8.go,
// F32ToF8E4M3FNBits and F32ToF8E5M2Bits, which these kernels agree with bit for bit).
type f8Spec struct {
	name    string
	clamp   uint32 // larger magnitudes (overflow, Inf, NaN) clamp to one that rounds to the overflow code
	normMin uint32 // the smallest normal f8 magnitude, as f32 bits
	drop    uint8  // f32 mantissa bits dropped
	rebias  uint32 // (127 - bias) << mbits
	magic   uint32 // f32 bits of the power of two whose ulp is the f8 subnormals' step
	nanTwo  bool   // NaN is the overflow code | 2 (f8e5m2), not the overflow code
	bias    uint32 // half an f8 ulp less one, in f32 bits
}

var (
	f8E4M3FN = f8Spec{name: "E4M3FN", clamp: 0x43f00000, normMin: 0x3c800000, drop: 20, rebias: 120 << 3, magic: 0x46800000, bias: 0x7ffff}
	f8E5M2   = f8Spec{name: "E5M2", clamp: 0x47800000, normMin: 0x38800000, drop: 21, rebias: 112 << 2, magic: 0x43000000, bias: 0xfffff, nanTwo: true}
)

// f8Consts holds the constants in registers.
type f8Consts struct {
	abs, clamp, one, bias, normMin, magic, rebias, sign reg.VecVirtual
	inf, two                                            Op // in memory: AVX2 has 16 registers
}

func newF8Consts(x isa, f f8Spec) f8Consts {
	c := f8Consts{
		abs: x.broadcast32(0x7fffffff), clamp: x.broadcast32(f.clamp), one: x.broadcast32(1),
		bias: x.broadcast32(f.bias), normMin: x.broadcast32(f.normMin), magic: x.broadcast32(f.magic),
		rebias: x.broadcast32(f.rebias), sign: x.broadcast32(0x80),
	}
	if f.nanTwo {
		c.inf, c.two = table("inf32", dwordTable(0x7f800000), x.w), table("two32", dwordTable(2), x.w)
	}
	return c
}

// roundF8 returns a vector whose 32-bit elements hold, in their low byte, the f8
// conversion of the f32 elements of v (the upper bytes zero):
//
//	a = min(|v|, clamp)
//	a < normMin: bits(float(a) + magic) - bits(magic)              (subnormal, rounded by the FPU)
//	otherwise:   (a + bias + ((a >> drop) & 1)) >> drop - rebias   (nearest even)
//	| 2 where v is NaN (f8e5m2), | 0x80 where v is negative
func roundF8(x isa, f f8Spec, c f8Consts, v reg.VecVirtual) reg.VecVirtual {
	a, t, n, s := x.vec(), x.vec(), x.vec(), x.vec()
	x.and(c.abs, v, a)
	// Before the clamp: NaN's bits are above Inf's.
	var nan reg.VecVirtual
	var nanK reg.Register
	if f.nanTwo {
		if x.w == 64 {
			k := K()
			VPCMPGTD(c.inf, a, k)
			nanK = k
		} else {
			nan = x.vec()
			VPCMPGTD(c.inf, a, nan)
			x.and(c.two, nan, nan)
		}
	}
	VPMINUD(c.clamp, a, a)
	// Normal: round to nearest even at bit drop.
	VPSRLD(U8(f.drop), a, t)
	x.and(c.one, t, t)
	VPADDD(c.bias, t, t)
	VPADDD(a, t, n)
	VPSRLD(U8(f.drop), n, n)
	VPSUBD(c.rebias, n, n)
	// Subnormal: the float addition rounds at the f8 step.
	VADDPS(c.magic, a, t)
	VPSUBD(c.magic, t, t)
	if x.w == 64 {
		k := K()
		VPCMPGTD(a, c.normMin, k) // normMin > a
		VPBLENDMD(t, n, k, n)
	} else {
		m := x.vec()
		VPCMPGTD(a, c.normMin, m)
		VPBLENDVB(m, t, n, n)
	}
	VPSRLD(U8(24), v, s)
	x.and(c.sign, s, s)
	x.or(s, n, n)
	if f.nanTwo {
		if x.w == 64 {
			VPORD(c.two, n, nanK, n)
		} else {
			x.or(nan, n, n)
		}
	}
	return n
}

// genF32ToF8Interleave emits the f32 → f8 conversion of four rows packed in (4,1)
// quads: dst[4i+k] = f8(rk[i]); AVX2 8 elements per step, AVX-512 16. from is the rows'
// type, as genF32ToF8's.
func genF32ToF8Interleave(x isa, f f8Spec, from string, m mode) {
	e := x.w / 4
	name := fname(lowerType[from]+"ToF8"+f.name+"Interleave8x4", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, r0, r1, r2, r3 *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s converts n*%d %s elements of r0..r3 to f8%s and packs them in 32-bit quads of dst.%s", name, e, strings.ToLower(from), strings.ToLower(f.name), m.doc()))
	dst := param("dst")
	rp := []reg.GPVirtual{param("r0"), param("r1"), param("r2"), param("r3")}
	n := param("n")
	c := newF8Consts(x, f)
	ss := []stream{{dst, x.w, true}}
	for _, p := range rp {
		ss = append(ss, stream{p, e * typeBytes(from), false})
	}
	m.loop(n, 1, ss, func(int) {
		var out reg.VecVirtual
		for k, p := range rp {
			v := x.vec()
			loadAsF32(x, from, at(p, 0), v)
			r := roundF8(x, f, c, v)
			if k == 0 {
				out = r
				continue
			}
			VPSLLD(U8(8*k), r, r)
			x.or(r, out, out)
		}
		x.store(out, at(dst, 0), m)
	})
	finish(m)
}

// lowerType is a float type's name in kernel names.
var lowerType = map[string]string{"F32": "f32", "BF16": "bf16", "F16": "f16"}

// typeBytes is the bytes of an element of a float type.
func typeBytes(t string) int {
	if t == "F32" {
		return 4
	}
	return 2
}

// loadAsF32 loads x.w/4 elements of type t at mem into v as f32, exactly: bf16 by
// VPMOVZXWD and a shift, f16 by VCVTPH2PS.
func loadAsF32(x isa, t string, mem Mem, v reg.VecVirtual) {
	switch t {
	case "F32":
		x.load(mem, v)
	case "BF16":
		VPMOVZXWD(mem, v)
		VPSLLD(U8(16), v, v)
	default:
		VCVTPH2PS(mem, v)
	}
}

// genSplitNibbles emits the split of bytes into their nibbles, zero-extended:
// lo[i] = src[i] & 15, hi[i] = src[i] >> 4; AVX2 32 bytes per step, AVX-512 64.
func genSplitNibbles(x isa, m mode) {
	name := fname("splitNibbles", x, m)
	TEXT(name, NOSPLIT, m.sig("func(lo, hi, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s splits n*%d bytes of src into their low nibbles (lo) and high nibbles (hi).%s", name, x.w, m.doc()))
	lo, hi, src, n := param("lo"), param("hi"), param("src"), param("n")
	mask := x.vec()
	VPBROADCASTB(table("nibble", []byte{0x0f}, 1), mask)
	m.loop(n, 1, []stream{{lo, x.w, true}, {hi, x.w, true}, {src, x.w, false}}, func(int) {
		v, h := x.vec(), x.vec()
		x.load(at(src, 0), v)
		VPSRLW(U8(4), v, h)
		x.and(mask, v, v)
		x.and(mask, h, h)
		x.store(v, at(lo, 0), m)
		x.store(h, at(hi, 0), m)
	})
	finish(m)
}

// genSplitNibbleWords emits the read-back of (8,1)E(4) words in one pass: each
// 32-bit word holds eight rows' 4-bit elements of one column (row 2k in the low
// nibble of byte k, row 2k+1 in its high nibble), and row m of dst, rowStride bytes
// after row m-1, gets them one a byte, zero-extended:
// dst[m*rowStride + i] = src[4i + m/2] >> (4*(m%2)) & 15. It is deinterleave8x4
// followed by splitNibbles without the four scratch rows between them (s4 8192²
// tiles read back spent as long in the deinterleave into scratch as in the split).
// With non-temporal stores on AVX-512 it asks for the source's lines splitAhead
// bytes ahead: one source stream beside eight destination streams, which the
// hardware prefetchers followed too late (bench/design-notes.md).
// AVX2 32 words per step, AVX-512 64.
func genSplitNibbleWords(x isa, m mode) {
	name := fname("splitNibbleWords", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst *byte, rowStride int, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s splits n*%d 32-bit words of src, eight 4-bit elements each, into the eight rows of dst, rowStride bytes apart, one element a byte.%s", name, x.w, m.doc()))
	dst, rs, src, n := param("dst"), param("rowStride"), param("src"), param("n")
	split := newWordSplit(x, rs)
	m.loop(n, 1, []stream{{dst, x.w, true}, {src, 4 * x.w, false}}, func(int) {
		if m.nt() && x.w == 64 {
			for off := 0; off < 4*x.w; off += 64 {
				PREFETCHNTA(at(src, off+splitAhead))
			}
		}
		split.step(x, m, dst, src)
	})
	finish(m)
}

// genSplitNibbleWordsPair emits genSplitNibbleWords' batch run on two batches at
// once, dst from src and dst2 from src2, a step of each in turn: the same stores in
// another order, for callers that pair places far apart (relayout's read-back of
// XLA's int4 tiling, whose rows are 256 bytes: bench/design-notes.md). The loop asks
// for both sources' lines ahead, as the streaming batches of several source rows do.
func genSplitNibbleWordsPair(x isa, m mode) {
	name := fname("splitNibbleWordsPair", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst *byte, dst2 *byte, rowStride int, src *byte, src2 *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s splits n*%d 32-bit words of src into the eight rows of dst, rowStride bytes apart, one element a byte, and as many of src2 into dst2, a step of each in turn.%s", name, x.w, m.doc()))
	dst, dst2, rs, src, src2, n := param("dst"), param("dst2"), param("rowStride"), param("src"), param("src2"), param("n")
	split := newWordSplit(x, rs)
	m.loop(n, 1, []stream{{dst, x.w, true}, {src, 4 * x.w, false}, {dst2, x.w, true}, {src2, 4 * x.w, false}}, func(int) {
		split.step(x, m, dst, src)
		split.step(x, m, dst2, src2)
	})
	finish(m)
}

// wordSplit holds what the steps of genSplitNibbleWords share: the row stride's
// multiples and the shuffle constants.
type wordSplit struct {
	rs, rs3, rs5, rs7 reg.GPVirtual
	shuf, perm, mask  reg.VecVirtual
}

func newWordSplit(x isa, rs reg.GPVirtual) *wordSplit {
	w := &wordSplit{rs: rs, rs3: GP64(), rs5: GP64(), rs7: GP64()}
	// Row m is at dst + m*rowStride: scaled indexes of rowStride and its 3, 5 and 7 multiples.
	LEAQ(Mem{Base: rs, Index: rs, Scale: 2}, w.rs3)
	LEAQ(Mem{Base: rs, Index: rs, Scale: 4}, w.rs5)
	LEAQ(Mem{Base: w.rs3, Index: rs, Scale: 4}, w.rs7)
	w.shuf, w.perm = quadTables(x)
	w.mask = x.vec()
	VPBROADCASTB(table("nibble", []byte{0x0f}, 1), w.mask)
	return w
}

// step splits x.w words at src into the eight rows at dst.
func (w *wordSplit) step(x isa, m mode, dst, src reg.GPVirtual) {
	rs, rs3, rs5, rs7 := w.rs, w.rs3, w.rs5, w.rs7
	row := [8]Mem{
		{Base: dst}, {Base: dst, Index: rs, Scale: 1}, {Base: dst, Index: rs, Scale: 2}, {Base: dst, Index: rs3, Scale: 1},
		{Base: dst, Index: rs, Scale: 4}, {Base: dst, Index: rs5, Scale: 1}, {Base: dst, Index: rs3, Scale: 2}, {Base: dst, Index: rs7, Scale: 1},
	}
	V := deinterleaveQuads(x, w.shuf, w.perm, src)
	for k, v := range V {
		h := x.vec()
		VPSRLW(U8(4), v, h)
		x.and(w.mask, v, v)
		x.and(w.mask, h, h)
		x.store(v, row[2*k], m)
		x.store(h, row[2*k+1], m)
	}
}

// splitAhead is how far ahead of its source the streaming AVX-512 int4 read-back
// prefetches (bench/design-notes.md).
const splitAhead = 4096

// genJoinNibbleWords emits the inverse of genSplitNibbleWords, (8,1)E(4) words
// written in one pass: eight rows of src, rowStride bytes apart, one 4-bit element a
// byte (bits above 4 dropped), joined two rows a byte (joinNibbles) and the four
// bytes of a column interleaved into its word (interleave8x4):
// byte k of word i = src[2k*rowStride + i]&15 | src[(2k+1)*rowStride + i]<<4. The
// joins into four scratch rows and their interleaving took two passes (s4 8192²
// into tiles). With non-temporal stores it asks for each row's lines
// prefetchAhead bytes ahead, as the packing kernels of several rows do.
// AVX2 32 words per step, AVX-512 64.
func genJoinNibbleWords(x isa, m mode) {
	name := fname("joinNibbleWords", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst *byte, rowStride int, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s joins n*%d columns of the eight rows of src, rowStride bytes apart, one 4-bit element a byte, into their 32-bit words in dst.%s", name, x.w, m.doc()))
	dst, rs, src, n := param("dst"), param("rowStride"), param("src"), param("n")
	rs3, rs5, rs7 := GP64(), GP64(), GP64()
	LEAQ(Mem{Base: rs, Index: rs, Scale: 2}, rs3)
	LEAQ(Mem{Base: rs, Index: rs, Scale: 4}, rs5)
	LEAQ(Mem{Base: rs3, Index: rs, Scale: 4}, rs7)
	row := [8]Mem{
		{Base: src}, {Base: src, Index: rs, Scale: 1}, {Base: src, Index: rs, Scale: 2}, {Base: src, Index: rs3, Scale: 1},
		{Base: src, Index: rs, Scale: 4}, {Base: src, Index: rs5, Scale: 1}, {Base: src, Index: rs3, Scale: 2}, {Base: src, Index: rs7, Scale: 1},
	}
	lo, hi := x.vec(), x.vec()
	VPBROADCASTB(table("nibble", []byte{0x0f}, 1), lo)
	VPBROADCASTB(table("nibbleHigh", []byte{0xf0}, 1), hi)
	m.loop(n, 1, []stream{{dst, 4 * x.w, true}, {src, x.w, false}}, func(int) {
		var J [4]reg.VecVirtual
		for k := range J {
			if m.nt() && x.w == 64 { // a line of each row a step
				for _, r := range row[2*k : 2*k+2] {
					r.Disp = prefetchAhead
					PREFETCHNTA(r)
				}
			}
			J[k] = x.vec()
			h := x.vec()
			x.load(row[2*k], J[k])
			x.load(row[2*k+1], h)
			VPSLLW(U8(4), h, h) // a word shift: the mask drops the bits of the byte below
			x.and(lo, J[k], J[k])
			x.and(hi, h, h)
			x.or(h, J[k], J[k])
		}
		for i, v := range interleaveQuads(x, J) {
			x.store(v, at(dst, i*x.w), m)
		}
	})
	finish(m)
}

// genJoinNibbles emits the inverse of genSplitNibbles: two rows of 4-bit values, one
// a byte, joined two a byte, out[i] = a[i]&15 | b[i]<<4 (int4 rows packed for (8,1)E(4)
// tiles); AVX2 32 bytes per step, AVX-512 64.
func genJoinNibbles(x isa, m mode) {
	name := fname("joinNibbles", x, m)
	TEXT(name, NOSPLIT, m.sig("func(out, a, b *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s joins n*%d bytes of a (low nibbles) and b (high nibbles) into out.%s", name, x.w, m.doc()))
	out, a, b, n := param("out"), param("a"), param("b"), param("n")
	lo, hi := x.vec(), x.vec()
	VPBROADCASTB(table("nibble", []byte{0x0f}, 1), lo)
	VPBROADCASTB(table("nibbleHigh", []byte{0xf0}, 1), hi)
	m.loop(n, 1, []stream{{out, x.w, true}, {a, x.w, false}, {b, x.w, false}}, func(int) {
		v, h := x.vec(), x.vec()
		x.load(at(a, 0), v)
		x.load(at(b, 0), h)
		VPSLLW(U8(4), h, h) // a word shift: the mask drops the bits of the byte below
		x.and(lo, v, v)
		x.and(hi, h, h)
		x.or(v, h, v)
		x.store(v, at(out, 0), m)
	})
	finish(m)
}

// f8Widen is an f8 format's constants for widening to f32 (see simd/f8.go's tables,
// which these kernels agree with bit for bit).
type f8Widen struct {
	name    string
	shift   uint8  // f32 exponent field's place minus the f8's: 23 - mbits
	rebias  uint32 // (127 - bias) << 23
	subMax  uint32 // magnitudes below it are subnormal (1 << mbits)
	scale   uint32 // f32 bits of 2^(1 - bias - mbits), a subnormal's step
	infCode uint32 // the magnitude that is Inf (f8e5m2), or 0 (none)
	nanFrom uint32 // magnitudes above it are NaN
}

var (
	widenE4M3FN = f8Widen{name: "E4M3FN", shift: 20, rebias: 120 << 23, subMax: 8, scale: 0x3b000000, nanFrom: 0x7e}
	widenE5M2   = f8Widen{name: "E5M2", shift: 21, rebias: 112 << 23, subMax: 4, scale: 0x37800000, infCode: 0x7c, nanFrom: 0x7c}
)

// genF8ToF32 emits f8 runs widened to f32, dst[i] = f32(src[i]): the bytes
// zero-extended to dwords (VPMOVZXBD), then genF8DeinterleaveToF32's arithmetic; AVX2 8
// elements per step, AVX-512 16.
func genF8ToF32(x isa, f f8Widen, m mode) {
	e := x.w / 4
	name := fname("f8"+f.name+"ToF32", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens n*%d f8%s of src to f32 in dst.%s", name, e, strings.ToLower(f.name), m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	c := f.consts(x)
	m.loop(n, 1, []stream{{dst, x.w, true}, {src, e, false}}, func(int) {
		b := x.vec()
		VPMOVZXBD(at(src, 0), b)
		r := c.widen(x, f, b)
		x.store(r, at(dst, 0), m)
	})
	finish(m)
}

// genF8To16 emits f8 runs widened to bf16 or f16 in one pass, dst[i] = to(f32(src[i])):
// genF8ToF32's arithmetic on each half, then the f32 values, all of which the 16-bit
// type holds exactly (so no rounding), narrowed: bf16 as their upper halves, f16 by
// VCVTPS2PH. The conversion through an f32 scratch row took two kernels and a rounding.
// AVX2 16 elements per step, AVX-512 32.
func genF8To16(x isa, f f8Widen, bf16 bool, m mode) {
	e := x.w / 2
	to := "F16"
	if bf16 {
		to = "BF16"
	}
	name := fname("f8"+f.name+"To"+to, x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens n*%d f8%s of src to %s in dst.%s", name, e, strings.ToLower(f.name), strings.ToLower(to), m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	c := f.consts(x)
	m.loop(n, 1, []stream{{dst, x.w, true}, {src, e, false}}, func(int) {
		var h [2]reg.VecVirtual
		for q := range h {
			b := x.vec()
			VPMOVZXBD(at(src, q*x.w/4), b)
			r := c.widen(x, f, b)
			h[q] = x.vec()
			if bf16 {
				VPSRLD(U8(16), r, h[q])
				if x.w == 64 {
					VPMOVDW(h[q], half(x, h[q]))
				}
				continue
			}
			VCVTPS2PH(U8(0), r, half(x, h[q]))
		}
		switch {
		case bf16 && x.w == 32:
			VPACKUSDW(h[1], h[0], h[0]) // lanes: h0 low, h1 low, h0 high, h1 high
			VPERMQ(U8(0xd8), h[0], h[0])
		case x.w == 64:
			VINSERTI64X4(U8(1), half(x, h[1]), h[0], h[0])
		default:
			VINSERTI128(U8(1), half(x, h[1]), h[0], h[0])
		}
		x.store(h[0], at(dst, 0), m)
	})
	finish(m)
}

// genPackNibblePairs emits int4 elements one a byte packed two a byte, neighbours
// together: out[i] = in[2i]&15 | in[2i+1]<<4 (a row of (8,1)E(4) words); each word of
// in becomes its byte, packed by VPMOVWB (AVX-512) or VPACKUSWB and VPERMQ (AVX2).
// Out gets x.w bytes a step.
func genPackNibblePairs(x isa, m mode) {
	name := fname("packNibblePairs", x, m)
	TEXT(name, NOSPLIT, m.sig("func(out, in *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s packs n*%d byte pairs of in into out, in[2i]&15 | in[2i+1]<<4.%s", name, x.w, m.doc()))
	out, in, n := param("out"), param("in"), param("n")
	lo, hi := x.broadcast32(0x000f000f), x.broadcast32(0x00f000f0)
	m.loop(n, 1, []stream{{out, x.w, true}, {in, 2 * x.w, false}}, func(int) {
		var v [2]reg.VecVirtual
		for k := range v {
			v[k] = x.vec()
			t := x.vec()
			x.load(at(in, k*x.w), v[k])
			VPSRLW(U8(4), v[k], t)
			x.and(lo, v[k], v[k])
			x.and(hi, t, t)
			x.or(t, v[k], v[k])
		}
		r := x.vec()
		if x.w == 64 {
			VPMOVWB(v[0], r.AsY())
			y := x.vec()
			VPMOVWB(v[1], y.AsY())
			VINSERTI64X4(U8(1), y.AsY(), r, r)
		} else {
			VPACKUSWB(v[1], v[0], r) // lanes: v0 low, v1 low, v0 high, v1 high
			VPERMQ(U8(0xd8), r, r)
		}
		x.store(r, at(out, 0), m)
	})
	finish(m)
}

// genUnpackNibblePairs emits the inverse: out[2i] = in[i]&15, out[2i+1] = in[i]>>4,
// each byte zero-extended to a word (VPMOVZXBW) and its high nibble shifted into the
// word's high byte. Out gets x.w bytes a step.
func genUnpackNibblePairs(x isa, m mode) {
	name := fname("unpackNibblePairs", x, m)
	TEXT(name, NOSPLIT, m.sig("func(out, in *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s unpacks n*%d bytes of in into their nibble pairs in out.%s", name, x.w/2, m.doc()))
	out, in, n := param("out"), param("in"), param("n")
	lo, hi := x.broadcast32(0x000f000f), x.broadcast32(0x0f000f00)
	m.loop(n, 1, []stream{{out, x.w, true}, {in, x.w / 2, false}}, func(int) {
		v, t := x.vec(), x.vec()
		VPMOVZXBW(at(in, 0), v)
		VPSLLW(U8(4), v, t)
		x.and(lo, v, v)
		x.and(hi, t, t)
		x.or(t, v, v)
		x.store(v, at(out, 0), m)
	})
	finish(m)
}

// widenConsts are the broadcast constants of widening f8 to f32 (see widen).
type widenConsts struct {
	mag, rebias, subMax, scale, nanFrom, nan, infBelow, inf reg.VecVirtual
}

// consts broadcasts f's constants, once before a loop.
func (f f8Widen) consts(x isa) widenConsts {
	c := widenConsts{mag: x.broadcast32(0x7f)}
	c.rebias, c.subMax, c.scale = x.broadcast32(f.rebias), x.broadcast32(f.subMax), x.broadcast32(f.scale)
	c.nanFrom, c.nan = x.broadcast32(f.nanFrom), x.broadcast32(0x7fc00000)
	if f.infCode != 0 {
		c.infBelow, c.inf = x.broadcast32(f.infCode-1), x.broadcast32(0x7f800000)
	}
	return c
}

// widen returns the f32 values of the f8 bytes in the low byte of each dword of b
// (b is clobbered): the normal fields shifted into place and rebiased, subnormals as
// the mantissa times the step (exact in f32), infinities and NaNs, then the sign.
func (c widenConsts) widen(x isa, f f8Widen, b reg.VecVirtual) reg.VecVirtual {
	a, r, t := x.vec(), x.vec(), x.vec()
	x.and(c.mag, b, a)
	VPSLLD(U8(f.shift), a, r)
	VPADDD(c.rebias, r, r)
	VCVTDQ2PS(a, t)
	VMULPS(c.scale, t, t)
	if x.w == 64 {
		k := K()
		VPCMPGTD(a, c.subMax, k) // subMax > a
		VPBLENDMD(t, r, k, r)
	} else {
		mk := x.vec()
		VPCMPGTD(a, c.subMax, mk)
		VPBLENDVB(mk, t, r, r)
	}
	if f.infCode != 0 {
		blendAbove(x, a, c.infBelow, c.inf, r)
	}
	blendAbove(x, a, c.nanFrom, c.nan, r)
	VPSRLD(U8(7), b, b)
	VPSLLD(U8(31), b, b)
	x.or(b, r, r)
	return r
}

// blendAbove sets res to val where a > thr (signed 32-bit compares: a is below 2^8).
func blendAbove(x isa, a, thr, val, res reg.VecVirtual) {
	if x.w == 64 {
		k := K()
		VPCMPGTD(thr, a, k)
		VPBLENDMD(val, res, k, res)
		return
	}
	m := x.vec()
	VPCMPGTD(thr, a, m)
	VPBLENDVB(m, val, res, res)
}

// genF8DeinterleaveToF32 emits the inverse of genF32ToF8Interleave: (4,1) quads of f8
// unpacked into four rows and widened to f32, rk[i] = f32(src[4i+k]); AVX2 8 quads per
// step, AVX-512 16.
func genF8DeinterleaveToF32(x isa, f f8Widen, m mode) {
	e := x.w / 4
	name := fname("f8"+f.name+"DeinterleaveToF32", x, m)
	TEXT(name, NOSPLIT, m.sig("func(r0, r1, r2, r3, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s unpacks n*%d 32-bit quads of f8%s from src into r0..r3, widened to f32.%s", name, e, strings.ToLower(f.name), m.doc()))
	rp := []reg.GPVirtual{param("r0"), param("r1"), param("r2"), param("r3")}
	src, n := param("src"), param("n")
	byteMask := x.broadcast32(0xff)
	c := f.consts(x)
	var ss []stream
	for _, p := range rp {
		ss = append(ss, stream{p, x.w, true})
	}
	ss = append(ss, stream{src, x.w, false})
	m.loop(n, 1, ss, func(int) {
		w := x.vec()
		x.load(at(src, 0), w)
		for k, p := range rp {
			b := x.vec()
			if k > 0 {
				VPSRLD(U8(8*k), w, b)
				x.and(byteMask, b, b)
			} else {
				x.and(byteMask, w, b)
			}
			r := c.widen(x, f, b)
			x.store(r, at(p, 0), m)
		}
	})
	finish(m)
}

// genF32ToF8 emits the f32 → f8 conversion of runs: x.w f8 bytes per step from four
// vectors of f32, narrowed with VPMOVDB (AVX-512) or two unsigned packs and a dword
// permutation (AVX2). from is the source type: "F32", or "BF16" and "F16", widened
// exactly to f32 as they are loaded (VPMOVZXWD and a shift, VCVTPH2PS), so that 16-bit
// floats round once, in one pass, where they went through an f32 scratch row.
func genF32ToF8(x isa, f f8Spec, from string, m mode) {
	name := fname(lowerType[from]+"ToF8"+f.name, x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s converts n*%d %s elements of src to f8%s.%s", name, x.w, strings.ToLower(from), strings.ToLower(f.name), m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	c := newF8Consts(x, f)
	idx := table("permd04152637", dwordTable(0, 4, 1, 5, 2, 6, 3, 7), 32)
	ew := typeBytes(from)
	m.loop(n, 1, []stream{{dst, x.w, true}, {src, ew * x.w, false}}, func(int) {
		round := func(q int) reg.VecVirtual {
			v := x.vec()
			loadAsF32(x, from, at(src, q*x.w*ew/4), v)
			return roundF8(x, f, c, v)
		}
		out := x.vec()
		if x.w == 64 {
			for q := range 4 {
				b := XMM()
				VPMOVDB(round(q), b)
				if q == 0 {
					VMOVDQA64(b.AsZ(), out)
					continue
				}
				VINSERTI32X4(U8(q), b, out, out)
			}
		} else {
			// Pairs packed as they come: AVX2 has 16 registers, ten of them constants.
			w01 := round(0)
			VPACKUSDW(round(1), w01, w01)
			w23 := round(2)
			VPACKUSDW(round(3), w23, w23)
			VPACKUSWB(w23, w01, w01)
			i := x.vec()
			x.load(idx, i)
			VPERMD(w01, i, out)
		}
		x.store(out, at(dst, 0), m)
	})
	finish(m)
}

// genF8To16VBMI emits genF8To16's kernels by table lookup, for AVX-512 with VBMI: the
// 16-bit results of the 128 magnitudes are two 128-byte tables (low and high bytes),
// which VPERMT2B indexes with the f8 bytes (it reads the low 7 bits of each), the sign
// is or-ed into the high bytes, and the two are interleaved into words. The input's
// quadwords are permuted first so that the lane-wise unpacks leave the words in order.
// 64 elements a step, where the arithmetic takes about 80 instructions
// per 32 and bound f8 → bf16 8192² (its kernel took more time than copy() did).
func genF8To16VBMI(f f8Widen, bf16 bool, m mode) {
	x := avx512
	to := "F16"
	if bf16 {
		to = "BF16"
	}
	name := fname("f8"+f.name+"To"+to+"VBMI", x, m)
	TEXT(name, NOSPLIT, m.sig("func(dst, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s widens n*64 f8%s of src to %s in dst by table lookup (AVX-512 VBMI).%s", name, strings.ToLower(f.name), strings.ToLower(to), m.doc()))
	dst, src, n := param("dst"), param("src"), param("n")
	lo, hi := f.table16(bf16)
	tn := "f8" + f.name + "To" + to
	tl, th := table(tn+"Lo", lo, 128), table(tn+"Hi", hi, 128)
	var tab [4]reg.VecVirtual
	for i, mem := range []Mem{tl, tl.Offset(64), th, th.Offset(64)} {
		tab[i] = x.vec()
		x.load(mem, tab[i])
	}
	perm := x.loadTable("permq04152637", qwordTable(0, 4, 1, 5, 2, 6, 3, 7))
	sign := x.vec()
	VPBROADCASTB(table("signByte", []byte{0x80}, 1), sign)
	m.loop(n, 1, []stream{{dst, 2 * x.w, true}, {src, x.w, false}}, func(int) {
		b, l, h, s := x.vec(), x.vec(), x.vec(), x.vec()
		VPERMQ(at(src, 0), perm, b)
		VMOVDQA64(tab[0], l)
		VPERMT2B(tab[1], b, l)
		VMOVDQA64(tab[2], h)
		VPERMT2B(tab[3], b, h)
		x.and(sign, b, s)
		x.or(s, h, h)
		w0, w1 := x.vec(), x.vec()
		VPUNPCKLBW(h, l, w0)
		VPUNPCKHBW(h, l, w1)
		x.store(w0, at(dst, 0), m)
		x.store(w1, at(dst, x.w), m)
	})
	finish(m)
}

// table16 returns the low and high bytes of the bf16 or f16 bits of f's 128
// magnitudes (sign clear): the value is exact in both; NaNs are the quiet NaN.
func (f f8Widen) table16(bf16 bool) (lo, hi []byte) {
	mbits := 23 - int(f.shift)
	bias := 127 - int(f.rebias>>23)
	for b := range 128 {
		e, mant := b>>mbits, b&(1<<mbits-1)
		var h uint16
		switch {
		case uint32(b) > f.nanFrom:
			h = 0x7e00
			if bf16 {
				h = 0x7fc0
			}
		case f.infCode != 0 && uint32(b) == f.infCode:
			h = 0x7c00
			if bf16 {
				h = 0x7f80
			}
		default:
			// The value is v = q × 2^p with q an integer below 2^(mbits+1).
			q, p := mant, 1-bias-mbits
			if e > 0 {
				q, p = mant|1<<mbits, e-bias-mbits
			}
			h = encode16(q, p, bf16)
		}
		lo, hi = append(lo, byte(h)), append(hi, byte(h>>8))
	}
	return lo, hi
}

// encode16 returns the bits of q × 2^p (q < 2^11, exact in the format) in bf16
// (8 exponent bits, 7 mantissa bits) or f16 (5 and 10, subnormals from 2^-24).
func encode16(q, p int, bf16 bool) uint16 {
	if q == 0 {
		return 0
	}
	ebias, mb := 15, 10
	if bf16 {
		ebias, mb = 127, 7
	}
	for q < 1<<mb { // normalize: q in [2^mb, 2^(mb+1))
		q, p = q<<1, p-1
	}
	for q >= 1<<(mb+1) {
		if q&1 != 0 {
			panic("encode16: inexact")
		}
		q, p = q>>1, p+1
	}
	e := p + mb + ebias // biased exponent of q × 2^p = 1.m × 2^(p+mb)
	if e <= 0 {         // subnormal: shift the mantissa down, exactly
		sh := 1 - e
		if q&(1<<sh-1) != 0 {
			panic("encode16: inexact subnormal")
		}
		return uint16(q >> sh)
	}
	return uint16(e<<mb | q&(1<<mb-1))
}

// genF8QuadsTo16VBMI emits the inverse of the 16-bit → f8 quad packing for AVX-512
// with VBMI: (4,1) quads of f8 unpacked into four rows and widened to bf16 or f16 by
// genF8To16VBMI's table lookup, rk[i] = to(f8(src[4i+k])). One VPERMB puts each
// input vector's bytes where the lane-wise unpacks of the looked-up low and high bytes
// leave rows 0 and 1 in one vector and rows 2 and 3 in the other (each row's 16
// elements as two 8-element halves in lanes 2r and 2r+1); two input vectors make 32
// elements, a line, of each row. 32 quads a step.
func genF8QuadsTo16VBMI(f f8Widen, bf16 bool, m mode) {
	x := avx512
	to := "F16"
	if bf16 {
		to = "BF16"
	}
	name := fname("f8"+f.name+"Deinterleave8x4To"+to+"VBMI", x, m)
	TEXT(name, NOSPLIT, m.sig("func(r0, r1, r2, r3, src *byte, n int)"))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s unpacks n*32 32-bit quads of f8%s from src into r0..r3, widened to %s by table lookup (AVX-512 VBMI).%s", name, strings.ToLower(f.name), strings.ToLower(to), m.doc()))
	rp := []reg.GPVirtual{param("r0"), param("r1"), param("r2"), param("r3")}
	src, n := param("src"), param("n")
	lo, hi := f.table16(bf16)
	tn := "f8" + f.name + "To" + to
	tl, th := table(tn+"Lo", lo, 128), table(tn+"Hi", hi, 128)
	var tab [4]reg.VecVirtual
	for i, mem := range []Mem{tl, tl.Offset(64), th, th.Offset(64)} {
		tab[i] = x.vec()
		x.load(mem, tab[i])
	}
	// Byte p of the permuted vector: lane L = p/16, half = p%16/8 (unpacklo or hi),
	// element e = p%8. Unpacklo lane L holds row L/2's elements 8(L%2)..+7; unpackhi
	// lane L row 2+L/2's. Quad q's byte k is source byte 4q+k.
	var idx []byte
	for p := range 64 {
		L, h, e := p/16, p%16/8, p%8
		row, el := L/2+2*h, 8*(L%2)+e
		idx = append(idx, byte(4*el+row))
	}
	perm := x.loadTable("f8QuadRows", idx)
	sign := x.vec()
	VPBROADCASTB(table("signByte", []byte{0x80}, 1), sign)
	ss := []stream{{src, 2 * x.w, false}}
	for _, p := range rp {
		ss = append(ss, stream{p, x.w, true})
	}
	m.loop(n, 1, ss, func(int) {
		var w [2][2]reg.VecVirtual // [input][rows 0,1 or rows 2,3]
		for q := range 2 {
			b, l, h, s := x.vec(), x.vec(), x.vec(), x.vec()
			VPERMB(at(src, q*x.w), perm, b)
			VMOVDQA64(tab[0], l)
			VPERMT2B(tab[1], b, l)
			VMOVDQA64(tab[2], h)
			VPERMT2B(tab[3], b, h)
			x.and(sign, b, s)
			x.or(s, h, h)
			w[q][0], w[q][1] = x.vec(), x.vec()
			VPUNPCKLBW(h, l, w[q][0])
			VPUNPCKHBW(h, l, w[q][1])
		}
		for k, p := range rp {
			o := x.vec()
			imm := U8(0x44) // lanes 0, 1 of each input: the pair's first row
			if k%2 == 1 {
				imm = U8(0xee)
			}
			VSHUFI64X2(imm, w[1][k/2], w[0][k/2], o)
			x.store(o, at(p, 0), m)
		}
	})
	finish(m)
}
