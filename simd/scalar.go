package simd

// F32ToBF16Bits converts the bits of an IEEE binary32 value to bfloat16 bits
// with round to nearest, ties to even. Finite values that round past the
// largest bfloat16 become ±Inf. A NaN becomes the quiet NaN 0x7fc0 with the
// input's sign (0xffc0 when negative), its payload dropped, as XLA's convert and
// ml_dtypes give it.
func F32ToBF16Bits(f uint32) uint16 {
	if f&0x7fffffff > 0x7f800000 {
		return uint16(f>>16)&0x8000 | 0x7fc0
	}
	return uint16((f + 0x7fff + (f>>16)&1) >> 16)
}

// BF16BitsToF32 widens bfloat16 bits to binary32 bits. The conversion is
// exact (the bits are shifted into the upper half), NaN payloads included.
func BF16BitsToF32(h uint16) uint32 {
	return uint32(h) << 16
}

// F32ToF16Bits converts the bits of an IEEE binary32 value to IEEE binary16
// bits with round to nearest, ties to even, including subnormal results.
// Values that round past 65504 become ±Inf. A NaN stays a NaN with the same
// sign and the upper 9 payload bits, and is made quiet (bit 0x0200 set); this
// matches the x86 VCVTPS2PH instruction.
func F32ToF16Bits(f uint32) uint16 {
	sign := uint16(f>>16) & 0x8000
	abs := f & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		return sign | 0x7e00 | uint16(abs>>13)&0x3ff
	case abs >= 0x477ff000: // rounds to Inf (65520 and above, Inf itself)
		return sign | 0x7c00
	case abs >= 0x38800000: // normal binary16 result (>= 2^-14)
		v := abs - 0x38000000 // rebias exponent from 127 to 15
		return sign | uint16((v+0xfff+(v>>13)&1)>>13)
	case abs > 0x33000000: // subnormal binary16 result (> 2^-25)
		e := abs >> 23
		m := abs&0x7fffff | 0x800000
		shift := 126 - e // 14..24
		q := m >> shift
		r := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if r > half || (r == half && q&1 == 1) {
			q++
		}
		return sign | uint16(q)
	default:
		return sign
	}
}

// F16BitsToF32 widens IEEE binary16 bits to binary32 bits. The conversion is
// exact for all finite values and infinities. A NaN keeps its sign and
// payload and is made quiet (bit 0x00400000 set), which matches the x86
// VCVTPH2PS instruction.
func F16BitsToF32(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h) & 0x3ff
	switch {
	case e == 0x1f:
		if m != 0 {
			return sign | 0x7fc00000 | m<<13
		}
		return sign | 0x7f800000
	case e != 0:
		return sign | (e+112)<<23 | m<<13
	case m == 0:
		return sign
	default: // subnormal: normalise
		e = 113
		for m&0x400 == 0 {
			m <<= 1
			e--
		}
		return sign | e<<23 | (m&0x3ff)<<13
	}
}
