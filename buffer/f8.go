package buffer

import (
	"math"

	"github.com/tpulayout/tpulayout/layout"
)

// Narrow floating-point formats (the f8 family, f4e2m1fn, and f16/bf16 when the source
// is a float64) are converted by one table-driven codec. Rounding is to nearest, ties to
// even, applied once to the exact value, so there is no double rounding.
//
// Out-of-range values follow ml_dtypes' non-saturating conversion (what JAX's
// astype does):
//   - types with an infinity (f16, bf16, f8e5m2, f8e4m3, f8e3m4) overflow to ±Inf;
//   - f8e4m3fn has no infinity: overflow and ±Inf become NaN with the input's sign
//     (S.1111.111); its largest finite value is 448, and values up to the rounding
//     midpoint 464 still round to 448;
//   - the fnuz types (f8e4m3fnuz, f8e5m2fnuz, f8e4m3b11fnuz) overflow to their only NaN
//     0x80, and have no negative zero (-0 becomes +0);
//   - f4e2m1fn has neither infinity nor NaN: overflow and ±Inf saturate to ±6, and NaN
//     becomes 0b1000 (-0), as in ml_dtypes;
//   - f8e8m0fnu (unsigned powers of two, no zero) rounds as XLA's convert does, not to
//     nearest even: a tie 1.5·2^e goes up, values between 2^-127 and 2^-126 become
//     2^-126, smaller ones 2^-127 (0x00); NaN, zero, negative values and overflow
//     become NaN (0xFF). See e8m0Encode.
//
// NaN inputs become the format's quiet NaN with the input's sign where the format has
// signed NaNs.

type fkind uint8

const (
	kindIEEE  fkind = iota // Inf at exp=all ones, mant=0; NaN at exp=all ones, mant≠0
	kindFN                 // no Inf; NaN only at exp and mant all ones
	kindFNUZ               // no Inf, no -0; the only NaN is the sign bit alone
	kindNoNaN              // no Inf, no NaN (f4e2m1fn)
)

type minifloat struct {
	ebits, mbits uint
	bias         int
	kind         fkind
}

var minifloats = [...]struct {
	dt layout.DType
	f  minifloat
}{
	{layout.F16, minifloat{5, 10, 15, kindIEEE}},
	{layout.BF16, minifloat{8, 7, 127, kindIEEE}},
	{layout.F8E5M2, minifloat{5, 2, 15, kindIEEE}},
	{layout.F8E4M3, minifloat{4, 3, 7, kindIEEE}},
	{layout.F8E3M4, minifloat{3, 4, 3, kindIEEE}},
	{layout.F8E4M3FN, minifloat{4, 3, 7, kindFN}},
	{layout.F8E4M3FNUZ, minifloat{4, 3, 8, kindFNUZ}},
	{layout.F8E5M2FNUZ, minifloat{5, 2, 16, kindFNUZ}},
	{layout.F8E4M3B11FNUZ, minifloat{4, 3, 11, kindFNUZ}},
	{layout.F4E2M1FN, minifloat{2, 1, 1, kindNoNaN}},
}

func minifloatOf(dt layout.DType) (minifloat, bool) {
	for _, m := range minifloats {
		if m.dt == dt {
			return m.f, true
		}
	}
	return minifloat{}, false
}

func (f minifloat) signBit() uint64 { return 1 << (f.ebits + f.mbits) }
func (f minifloat) expMask() uint64 { return 1<<f.ebits - 1 }
func (f minifloat) mantMask() uint64 {
	return 1<<f.mbits - 1
}

// decode returns the exact value of the bit pattern b.
func (f minifloat) decode(b uint64) float64 {
	sign := b&f.signBit() != 0
	e := (b >> f.mbits) & f.expMask()
	m := b & f.mantMask()
	switch f.kind {
	case kindIEEE:
		if e == f.expMask() {
			if m != 0 {
				return withSign(math.NaN(), sign)
			}
			return withSign(math.Inf(1), sign)
		}
	case kindFN:
		if e == f.expMask() && m == f.mantMask() {
			return withSign(math.NaN(), sign)
		}
	case kindFNUZ:
		if sign && e == 0 && m == 0 {
			return math.NaN()
		}
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-int(f.mbits))
	} else {
		v = math.Ldexp(float64(m|1<<f.mbits), int(e)-f.bias-int(f.mbits))
	}
	return withSign(v, sign)
}

func withSign(v float64, neg bool) float64 {
	if neg {
		return -v
	}
	return v
}

func (f minifloat) nan(neg bool) uint64 {
	switch f.kind {
	case kindIEEE:
		b := f.expMask()<<f.mbits | 1<<(f.mbits-1)
		if neg {
			b |= f.signBit()
		}
		return b
	case kindFN:
		b := f.expMask()<<f.mbits | f.mantMask()
		if neg {
			b |= f.signBit()
		}
		return b
	case kindFNUZ:
		return f.signBit()
	default: // no NaN: ml_dtypes uses the -0 pattern
		return f.signBit()
	}
}

// overflow is what a finite value beyond the largest finite one (or an infinity) becomes.
func (f minifloat) overflow(neg bool) uint64 {
	var b uint64
	switch f.kind {
	case kindIEEE:
		b = f.expMask() << f.mbits
	case kindFN, kindFNUZ:
		return f.nan(neg)
	default:
		b = f.expMask()<<f.mbits | f.mantMask()
	}
	if neg {
		b |= f.signBit()
	}
	return b
}

// zero returns the zero of the given sign (+0 for the fnuz types, which have no -0).
func (f minifloat) zero(sign uint64) uint64 {
	if f.kind == kindFNUZ {
		return 0
	}
	return sign
}

// encode rounds x to the nearest value of the format, ties to even.
func (f minifloat) encode(x float64) uint64 {
	if math.IsNaN(x) {
		return f.nan(math.Signbit(x))
	}
	neg := math.Signbit(x)
	a := math.Abs(x)
	if math.IsInf(a, 0) {
		return f.overflow(neg)
	}
	var sign uint64
	if neg {
		sign = f.signBit()
	}
	if a == 0 {
		return f.zero(sign)
	}
	emin := 1 - f.bias
	_, e := math.Frexp(a) // a = frac × 2^e, frac in [0.5, 1)
	e--                   // a in [2^e, 2^(e+1))
	q := max(e, emin) - int(f.mbits)
	n := math.RoundToEven(math.Ldexp(a, -q))
	if n == 0 {
		return f.zero(sign)
	}
	if n == float64(uint64(1)<<(f.mbits+1)) {
		n /= 2
		q++
	}
	ni := uint64(n)
	var ef, mf uint64
	if ni < 1<<f.mbits { // subnormal
		ef, mf = 0, ni
	} else {
		exp := q + int(f.mbits) + f.bias
		if exp > int(f.expMask()) {
			return f.overflow(neg)
		}
		ef, mf = uint64(exp), ni-1<<f.mbits
	}
	switch f.kind {
	case kindIEEE:
		if ef == f.expMask() {
			return f.overflow(neg)
		}
	case kindFN:
		if ef == f.expMask() && mf == f.mantMask() {
			return f.overflow(neg)
		}
	}
	return sign | ef<<f.mbits | mf
}

// e8m0 is f8e8m0fnu: an unsigned power of two 2^(e-127), 0xFF is NaN, no zero.
func e8m0Decode(b uint64) float64 {
	b &= 0xFF
	if b == 0xFF {
		return math.NaN()
	}
	return math.Ldexp(1, int(b)-127)
}

// e8m0Encode rounds x to f8e8m0fnu as XLA's convert does (the recording in
// testdata/xla): a value in [2^e, 2^(e+1)) from 2^-126 on becomes 2^(e+1) from
// 1.5·2^e on (ties up, not to even) and 2^e below; a smaller positive value becomes
// 2^-126 (0x01) above 2^-127 and 2^-127 (0x00) up to it; NaN, zero, negative values,
// +Inf and values rounding past 2^127 become NaN (0xFF).
func e8m0Encode(x float64) uint64 {
	if !(x > 0) || math.IsInf(x, 1) { // NaN, ±0, negative values, +Inf
		return 0xFF
	}
	if x < 0x1p-126 {
		if x > 0x1p-127 {
			return 1
		}
		return 0
	}
	frac, e := math.Frexp(x) // frac in [0.5, 1)
	e--
	if frac >= 0.75 { // x >= 1.5·2^e
		e++
	}
	if b := e + 127; b <= 254 {
		return uint64(b)
	}
	return 0xFF
}

// F8E4M3FNToF32 returns the value of an f8e4m3fn bit pattern (exact).
func F8E4M3FNToF32(b uint8) float32 { return float32(f8e4m3fn.decode(uint64(b))) }

// F32ToF8E4M3FN rounds x to f8e4m3fn (nearest, ties to even). Values beyond ±448 that
// do not round to it, and ±Inf, become NaN with x's sign, as in ml_dtypes.
func F32ToF8E4M3FN(x float32) uint8 { return uint8(f8e4m3fn.encode(float64(x))) }

// F8E5M2ToF32 returns the value of an f8e5m2 bit pattern (exact).
func F8E5M2ToF32(b uint8) float32 { return float32(f8e5m2.decode(uint64(b))) }

// F32ToF8E5M2 rounds x to f8e5m2 (nearest, ties to even). Values beyond the largest
// finite 57344 that do not round to it become ±Inf, as in ml_dtypes.
func F32ToF8E5M2(x float32) uint8 { return uint8(f8e5m2.encode(float64(x))) }

var (
	f8e4m3fn, _ = minifloatOf(layout.F8E4M3FN)
	f8e5m2, _   = minifloatOf(layout.F8E5M2)
)
