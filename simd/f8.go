package simd

import "math"

// The f8 formats of quantized models: f8e4m3fn (bias 7, no infinity, NaN only at
// S.1111.111, largest finite 448) and f8e5m2 (bias 15, IEEE-like: ±Inf and NaNs).
// Conversions from f32 round once, to nearest with ties to even, as ml_dtypes'
// non-saturating astype does (package buffer's F32ToF8E4M3FN and F32ToF8E5M2 are the
// definitions these are tested against): f8e4m3fn overflow and ±Inf become NaN with
// the input's sign, f8e5m2 overflow becomes ±Inf, and NaNs become the format's quiet
// NaN with the input's sign (0x7f, 0x7e).

// F32ToF8E4M3FNBits converts the bits of an IEEE binary32 value to f8e4m3fn bits.
// Magnitudes up to the midpoint 464 round to 448; larger ones, ±Inf and NaN become
// NaN (0x7f) with the input's sign. Subnormal results are exact.
func F32ToF8E4M3FNBits(f uint32) uint8 {
	s := uint8(f>>24) & 0x80
	// Past 464 (0x43e80000), Inf and NaN: clamped to 480, which rounds to 0x7f.
	a := min(f&0x7fffffff, 0x43f00000)
	if a < 0x3c800000 { // below 2^-6: a subnormal result, rounded by adding 2^14 (ulp 2^-9)
		return s | uint8(math.Float32bits(math.Float32frombits(a)+0x1p14)-0x46800000)
	}
	return s | uint8((a+0x7ffff+(a>>20)&1)>>20-(127-7)<<3)
}

// F32ToF8E5M2Bits converts the bits of an IEEE binary32 value to f8e5m2 bits.
// Magnitudes from the midpoint 61440 on round to ±Inf (0x7c); NaN becomes 0x7e
// with the input's sign. Subnormal results are exact.
func F32ToF8E5M2Bits(f uint32) uint8 {
	s := uint8(f>>24) & 0x80
	a := f & 0x7fffffff
	if a > 0x7f800000 {
		return s | 0x7e
	}
	a = min(a, 0x47800000) // 65536 and Inf: rounds to 0x7c
	// Below 2^-14: a subnormal result, rounded by adding 2^7 (ulp 2^-16).
	if a < 0x38800000 {
		return s | uint8(math.Float32bits(math.Float32frombits(a)+0x1p7)-0x43000000)
	}
	return s | uint8((a+0xfffff+(a>>21)&1)>>21-(127-15)<<2)
}

// F8E4M3FNBitsToF32 widens f8e4m3fn bits to binary32 bits (exact; NaN becomes the
// quiet NaN 0x7fc00000 with the input's sign).
func F8E4M3FNBitsToF32(b uint8) uint32 { return f8e4m3fnToF32[b] }

// F8E5M2BitsToF32 widens f8e5m2 bits to binary32 bits (exact; NaN becomes the quiet
// NaN 0x7fc00000 with the input's sign).
func F8E5M2BitsToF32(b uint8) uint32 { return f8e5m2ToF32[b] }

var f8e4m3fnToF32, f8e5m2ToF32 = f8Table(4, 3, true), f8Table(5, 2, false)

// The f8 patterns' bf16 and f16 bits: their f32 values narrowed, which is exact (the
// generic kernels' tables; the vector ones compute them).
var (
	f8e4m3fnToBF16, f8e4m3fnToF16 = table16(&f8e4m3fnToF32)
	f8e5m2ToBF16, f8e5m2ToF16     = table16(&f8e5m2ToF32)
)

func table16(t *[256]uint32) (bf, h [256]uint16) {
	for b, f := range t {
		bf[b], h[b] = F32ToBF16Bits(f), F32ToF16Bits(f)
	}
	return bf, h
}

// f8Table lists the f32 bits of every f8 pattern with ebits exponent and mbits
// mantissa bits (fn: no infinity, NaN only with all ones).
func f8Table(ebits, mbits uint, fn bool) (t [256]uint32) {
	bias := 1<<(ebits-1) - 1
	emax := uint32(1)<<ebits - 1
	for b := range 256 {
		sign := uint32(b&0x80) << 24
		e := uint32(b>>mbits) & emax
		m := uint32(b) & (1<<mbits - 1)
		var v uint32
		switch {
		case fn && e == emax && m == 1<<mbits-1, !fn && e == emax && m != 0:
			v = 0x7fc00000
		case !fn && e == emax:
			v = 0x7f800000
		case e == 0: // subnormal: m × 2^(1-bias-mbits), exact in f32
			v = math.Float32bits(float32(m) * float32(math.Ldexp(1, 1-bias-int(mbits))))
		default:
			v = (e+uint32(127-bias))<<23 | m<<(23-mbits)
		}
		t[b] = sign | v
	}
	return t
}

// f8Format selects one of the two f8 formats in the generic kernels.
type f8Format uint8

const (
	e4m3fn f8Format = iota
	e5m2
)

func (f f8Format) encode(x uint32) uint8 {
	if f == e4m3fn {
		return F32ToF8E4M3FNBits(x)
	}
	return F32ToF8E5M2Bits(x)
}

// genericF32ToF8 converts n f32 elements of src to f8 bytes of dst.
func genericF32ToF8(f f8Format, dst, src []byte, n int) {
	checkN(n)
	dst, src = dst[:n:len(dst)], src[:4*n:len(src)]
	if f == e4m3fn {
		for i := range dst {
			dst[i] = F32ToF8E4M3FNBits(le.Uint32(src[4*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = F32ToF8E5M2Bits(le.Uint32(src[4*i:]))
	}
}

// genericF8ToF32 widens n f8 bytes of src to f32 elements of dst.
func genericF8ToF32(t *[256]uint32, dst, src []byte, n int) {
	checkN(n)
	dst, src = dst[:4*n:len(dst)], src[:n:len(src)]
	for i, b := range src {
		le.PutUint32(dst[4*i:], t[b])
	}
}

// genericF16ToF8 converts n 16-bit floats of src, which widen gives the f32 of, to f8.
func genericF16ToF8(f f8Format, widen func(uint16) uint32, dst, src []byte, n int) {
	checkN(n)
	dst, src = dst[:n:len(dst)], src[:2*n:len(src)]
	for i := range dst {
		dst[i] = f.encode(widen(le.Uint16(src[2*i:])))
	}
}

// genericF16ToF8Interleave8x4 converts n 16-bit floats (widen gives their f32) of each
// of r0..r3 to f8 and packs them in quads: dst[4i+k] = f8(rk[i]).
func genericF16ToF8Interleave8x4(f f8Format, widen func(uint16) uint32, dst, r0, r1, r2, r3 []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	r0, r1, r2, r3 = r0[:2*n:len(r0)], r1[:2*n:len(r1)], r2[:2*n:len(r2)], r3[:2*n:len(r3)]
	for i := range n {
		w := uint32(f.encode(widen(le.Uint16(r0[2*i:])))) | uint32(f.encode(widen(le.Uint16(r1[2*i:]))))<<8 |
			uint32(f.encode(widen(le.Uint16(r2[2*i:]))))<<16 | uint32(f.encode(widen(le.Uint16(r3[2*i:]))))<<24
		le.PutUint32(dst[4*i:], w)
	}
}

// genericF8Deinterleave8x4To16 unpacks n quads of f8 from src into four rows of the
// 16-bit values t gives: rk[i] = t[src[4i+k]].
func genericF8Deinterleave8x4To16(t *[256]uint16, r0, r1, r2, r3, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	rows := [4][]byte{r0[: 2*n : len(r0)], r1[: 2*n : len(r1)], r2[: 2*n : len(r2)], r3[: 2*n : len(r3)]}
	for i := range n {
		for k, r := range rows {
			le.PutUint16(r[2*i:], t[src[4*i+k]])
		}
	}
}

// genericF8To16 widens n f8 bytes of src to the 16-bit elements of dst that t gives.
func genericF8To16(t *[256]uint16, dst, src []byte, n int) {
	checkN(n)
	dst, src = dst[:2*n:len(dst)], src[:n:len(src)]
	for i, b := range src {
		le.PutUint16(dst[2*i:], t[b])
	}
}

// genericF32ToF8Interleave8x4 converts n f32 elements of each of r0..r3 to f8 and
// packs them in quads: dst[4i+k] = f8(rk[i]).
func genericF32ToF8Interleave8x4(f f8Format, dst, r0, r1, r2, r3 []byte, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	r0, r1, r2, r3 = r0[:4*n:len(r0)], r1[:4*n:len(r1)], r2[:4*n:len(r2)], r3[:4*n:len(r3)]
	for i := 0; i < 4*n; i += 4 {
		w := uint32(f.encode(le.Uint32(r0[i:]))) | uint32(f.encode(le.Uint32(r1[i:])))<<8 |
			uint32(f.encode(le.Uint32(r2[i:])))<<16 | uint32(f.encode(le.Uint32(r3[i:])))<<24
		le.PutUint32(dst[i:], w)
	}
}

// genericSplitNibbles is SplitNibbles: lo[i] = src[i] & 15, hi[i] = src[i] >> 4.
func genericSplitNibbles(lo, hi, src []byte, n int) {
	checkN(n)
	lo, hi, src = lo[:n:len(lo)], hi[:n:len(hi)], src[:n:len(src)]
	i := 0
	for ; i+8 <= n; i += 8 {
		x := le.Uint64(src[i:])
		le.PutUint64(lo[i:], x&0x0f0f0f0f0f0f0f0f)
		le.PutUint64(hi[i:], x>>4&0x0f0f0f0f0f0f0f0f)
	}
	for ; i < n; i++ {
		lo[i], hi[i] = src[i]&0x0f, src[i]>>4
	}
}

// genericSplitNibbleWords is Nibbles.SplitWordsRows' one call.
func genericSplitNibbleWords(dst []byte, rowStride int, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	for m := range 8 {
		row, b, sh := dst[m*rowStride:m*rowStride+n], m/2, uint(4*(m%2))
		for i := range row {
			row[i] = src[4*i+b] >> sh & 15
		}
	}
}

// genericJoinNibbleWords is Nibbles.JoinWordsRows' one call.
func genericJoinNibbleWords(dst, src []byte, rowStride int, n int) {
	checkN(n)
	dst = dst[: 4*n : len(dst)]
	var r [8][]byte
	for m := range r {
		r[m] = src[m*rowStride : m*rowStride+n]
	}
	for i := range n {
		w := uint32(0)
		for m := range r {
			w |= uint32(r[m][i]&15) << (4 * m)
		}
		le.PutUint32(dst[4*i:], w)
	}
}

// genericJoinNibbles is JoinNibbles: out[i] = lo[i]&15 | hi[i]<<4.
func genericJoinNibbles(out, lo, hi []byte, n int) {
	checkN(n)
	out, lo, hi = out[:n:len(out)], lo[:n:len(lo)], hi[:n:len(hi)]
	i := 0
	for ; i+8 <= n; i += 8 {
		x, y := le.Uint64(lo[i:]), le.Uint64(hi[i:])
		le.PutUint64(out[i:], x&0x0f0f0f0f0f0f0f0f|y<<4&0xf0f0f0f0f0f0f0f0)
	}
	for ; i < n; i++ {
		out[i] = lo[i]&0x0f | hi[i]<<4
	}
}

// genericPackNibblePairs is PackNibblePairs: out[i] = in[2i]&15 | in[2i+1]<<4.
func genericPackNibblePairs(out, in []byte, n int) {
	checkN(n)
	out, in = out[:n:len(out)], in[:2*n:len(in)]
	for i := range out {
		out[i] = in[2*i]&0x0f | in[2*i+1]<<4
	}
}

// genericUnpackNibblePairs is UnpackNibblePairs: out[2i] = in[i]&15, out[2i+1] = in[i]>>4.
func genericUnpackNibblePairs(out, in []byte, n int) {
	checkN(n)
	out, in = out[:2*n:len(out)], in[:n:len(in)]
	for i, b := range in {
		out[2*i], out[2*i+1] = b&0x0f, b>>4
	}
}

// genericF8Deinterleave8x4ToF32 unpacks n quads of f8 from src into four f32 rows:
// rk[i] = f32(src[4i+k]), t the format's table.
func genericF8Deinterleave8x4ToF32(t *[256]uint32, r0, r1, r2, r3, src []byte, n int) {
	checkN(n)
	src = src[: 4*n : len(src)]
	r0, r1, r2, r3 = r0[:4*n:len(r0)], r1[:4*n:len(r1)], r2[:4*n:len(r2)], r3[:4*n:len(r3)]
	for i := 0; i < 4*n; i += 4 {
		le.PutUint32(r0[i:], t[src[i]])
		le.PutUint32(r1[i:], t[src[i+1]])
		le.PutUint32(r2[i:], t[src[i+2]])
		le.PutUint32(r3[i:], t[src[i+3]])
	}
}
