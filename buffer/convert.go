package buffer

import (
	"math"
	"math/bits"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// F32ToBF16 rounds x to bfloat16 bits: round to nearest, ties to even; NaN becomes the
// quiet NaN 0x7fc0 with its sign (0xffc0), as XLA converts it; overflow becomes ±Inf.
// It is simd.F32ToBF16Bits.
func F32ToBF16(x float32) uint16 { return simd.F32ToBF16Bits(math.Float32bits(x)) }

// BF16ToF32 returns the value of bfloat16 bits (exact).
func BF16ToF32(b uint16) float32 { return math.Float32frombits(simd.BF16BitsToF32(b)) }

// F32ToF16 rounds x to IEEE binary16 bits: round to nearest, ties to even, subnormals
// exact, NaN quieted with its sign, overflow to ±Inf. It is simd.F32ToF16Bits.
func F32ToF16(x float32) uint16 { return simd.F32ToF16Bits(math.Float32bits(x)) }

// F16ToF32 returns the value of binary16 bits (exact).
func F16ToF32(b uint16) float32 { return math.Float32frombits(simd.F16BitsToF32(b)) }

// mask returns the low n bits set (n in 0..64).
func mask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// signExtend reads the low n bits of b as a two's complement number.
func signExtend(b uint64, n int) int64 {
	if n >= 64 || n <= 0 {
		return int64(b)
	}
	s := 64 - uint(n)
	return int64(b<<s) >> s
}

// CanConvert reports whether [ConvertElement] supports the pair: any two of the real
// numeric types (pred, integers s1…u64, floating point including every f8 and f4e2m1fn),
// or a type to itself when it is at most 64 bits wide (c64 included).
func CanConvert(dst, src layout.DType) bool {
	if dst == src {
		return dst.IsArray() && dst.Bits() <= 64
	}
	return isReal(dst) && isReal(src)
}

func isReal(d layout.DType) bool {
	return d == layout.Pred || d.IsInteger() || d.IsFloat()
}

// ConvertElement converts one element's bits (in the low src.Bits() bits of b) from
// type src to type dst and returns dst's bits, zero-extended.
//
// The rules are those of XLA's convert:
//   - float → float goes through the exact value with a single rounding to nearest, ties
//     to even (f32 → bf16/f16 use the simd scalars); special values as described for
//     the f8 formats (see [F32ToF8E4M3FN]);
//   - integer → integer keeps the low bits (two's complement wraparound, like C and XLA);
//   - float → integer truncates toward zero and saturates to the destination range;
//     NaN becomes 0;
//   - integer → float rounds the exact value once to nearest, ties to even (64-bit
//     integers included);
//   - anything → pred is "≠ 0" (NaN is true); pred → anything is 0 or 1, and a
//     stored pred whose bits are any nonzero value is true (NumPy's bool view of a
//     byte), not only 1. pred → pred keeps the bits: a relayout moves bytes.
//
// ConvertElement panics if [CanConvert] reports false for the pair.
func ConvertElement(dst, src layout.DType, b uint64) uint64 {
	if dst == src {
		if !CanConvert(dst, src) {
			panic("buffer: ConvertElement: unsupported type " + dst.String())
		}
		return b & mask(dst.Bits())
	}
	if !CanConvert(dst, src) {
		panic("buffer: ConvertElement: unsupported conversion " + src.String() + " → " + dst.String())
	}
	if src == layout.Pred && b != 0 {
		b = 1 // the whole stored word: 0x02 and 0xFF are true too
	}
	b &= mask(src.Bits())
	switch {
	case src.IsFloat():
		if src == layout.F32 {
			switch dst {
			case layout.BF16:
				return uint64(simd.F32ToBF16Bits(uint32(b)))
			case layout.F16:
				return uint64(simd.F32ToF16Bits(uint32(b)))
			}
		}
		// Widening to f32 is exact and shares the SIMD kernels' scalars, so every relayout
		// path gives the same bits (bf16 NaN payloads are kept bit for bit, as XLA widens them).
		if dst == layout.F32 {
			switch src {
			case layout.BF16:
				return uint64(simd.BF16BitsToF32(uint16(b)))
			case layout.F16:
				return uint64(simd.F16BitsToF32(uint16(b)))
			}
		}
		v := decodeFloat(src, b)
		if dst.IsFloat() {
			return encodeFloat(dst, v)
		}
		return floatToInt(dst, v)
	case dst.IsFloat():
		return intToFloat(dst, src, b)
	case dst == layout.Pred:
		if b != 0 {
			return 1
		}
		return 0
	default: // integer or pred → integer: wraparound
		if src.IsSigned() {
			b = uint64(signExtend(b, src.Bits()))
		}
		return b & mask(dst.Bits())
	}
}

// decodeFloat returns the exact value of float bits of type dt.
func decodeFloat(dt layout.DType, b uint64) float64 {
	switch dt {
	case layout.F32:
		return float64(math.Float32frombits(uint32(b)))
	case layout.F64:
		return math.Float64frombits(b)
	case layout.BF16:
		return float64(math.Float32frombits(uint32(b) << 16))
	case layout.F8E8M0FNU:
		return e8m0Decode(b)
	}
	f, ok := minifloatOf(dt)
	if !ok {
		panic("buffer: not a float type: " + dt.String())
	}
	return f.decode(b)
}

// encodeFloat rounds v to type dt (nearest, ties to even) and returns its bits.
func encodeFloat(dt layout.DType, v float64) uint64 {
	switch dt {
	case layout.F32:
		return uint64(math.Float32bits(float32(v)))
	case layout.F64:
		return math.Float64bits(v)
	case layout.F8E8M0FNU:
		return e8m0Encode(v)
	}
	f, ok := minifloatOf(dt)
	if !ok {
		panic("buffer: not a float type: " + dt.String())
	}
	return f.encode(v)
}

// intRange returns the smallest and largest value of an integer type, as float64
// bounds suitable for saturation (exact for every width up to 64).
func intBounds(dt layout.DType) (lo, hi int64, ulo, uhi uint64) {
	n := dt.Bits()
	if dt.IsSigned() {
		return -1 << uint(n-1), 1<<uint(n-1) - 1, 0, 0
	}
	return 0, 0, 0, mask(n)
}

func floatToInt(dst layout.DType, v float64) uint64 {
	if dst == layout.Pred {
		if v != 0 {
			return 1
		}
		return 0
	}
	if math.IsNaN(v) {
		return 0
	}
	v = math.Trunc(v)
	n := dst.Bits()
	if dst.IsSigned() {
		lo, hi, _, _ := intBounds(dst)
		var r int64
		switch {
		case v <= float64(lo):
			r = lo
		case v >= float64(hi): // float64(hi) may round up to 2^63: still saturate
			r = hi
		default:
			r = int64(v)
		}
		return uint64(r) & mask(n)
	}
	_, _, _, uhi := intBounds(dst)
	switch {
	case v <= 0:
		return 0
	case v >= float64(uhi):
		return uhi
	}
	return uint64(v)
}

// intToFloat converts an integer (or pred) to a float type with one rounding: 64-bit
// magnitudes beyond 2^53 are first reduced to 53 significant bits with a sticky bit
// ("round to odd"), which makes the second rounding to at most 51 bits correct.
func intToFloat(dst, src layout.DType, b uint64) uint64 {
	neg := false
	mag := b
	if src.IsSigned() {
		v := signExtend(b, src.Bits())
		if v < 0 {
			neg = true
			mag = uint64(-v) // -MinInt64 wraps to 1<<63: the right magnitude
		} else {
			mag = uint64(v)
		}
	}
	var f float64
	if l := bits.Len64(mag); l <= 53 {
		f = float64(mag)
	} else {
		shift := uint(l - 53)
		m := mag >> shift
		if mag&(1<<shift-1) != 0 {
			m |= 1
		}
		f = math.Ldexp(float64(m), int(shift))
	}
	if dst == layout.F64 && mag > 1<<53 {
		// float64 itself must round the exact value, not the round-to-odd one.
		f = float64(mag)
	}
	if neg {
		f = -f
	}
	return encodeFloat(dst, f)
}

// valueOf returns an element's value as a float64 (exact for every type except
// 64-bit integers beyond 2^53, which round to nearest). It panics for complex types.
func valueOf(dt layout.DType, b uint64) float64 {
	switch {
	case dt.IsFloat():
		return decodeFloat(dt, b)
	case dt.IsSigned():
		return float64(signExtend(b, dt.Bits()))
	case dt.IsUnsigned():
		return float64(b & mask(dt.Bits()))
	case dt == layout.Pred:
		if b&1 != 0 {
			return 1
		}
		return 0
	}
	panic("buffer: no real value for type " + dt.String())
}
