package buffer

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// A Converter converts runs of contiguous elements from one type to another with
// exactly the bits of [ConvertElement] (stored as [Widen] stores them), without a call
// per element: byte-wide sources through a 256-entry table
// made with ConvertElement itself, bf16 ↔ f16 by rebiasing exponents four lanes a word,
// f64 → f32/bf16, f32 → f64, s64 → s32 and f32 ↔ s32 in one-pass loops, the other
// common types in two typed passes over chunks of a run (decode to float64 or a 64-bit
// integer, which holds every value exactly, then encode). 16-bit floats are rounded
// from float64 through f32 rounded to odd, so once. The elements those paths would not
// get exactly (NaNs, integers beyond 2^53 going to a float) and the uncommon pairs (f8
// destinations of wider types, types stored wider than they are) go through
// ConvertElement. A Converter is immutable and safe for concurrent use.
type Converter struct {
	dt, st       layout.DType
	dbits, sbits int
	table        []uint64                          // byte-wide sources: the destination bits of each byte
	halves       bool                              // bf16 ↔ f16: exponents rebiased
	direct       func(dst, src []byte, n int) bool // a one-pass loop, if the pair has one
	intToFloat   bool                              // integers decode to float64 bits (a NaN where that would round)
	dec          decoder
	enc          encoder
	lo, hi       float64 // float → integer: the saturation bounds
	ilo, ihi     int64
	uhi          uint64
}

type decoder uint8

const (
	decNone decoder = iota // no fast decoder: every element through ConvertElement
	decF32
	decF64
	decBF16
	decF16
	decSigned   // integers, sign-extended to int64
	decUnsigned // integers, zero-extended
)

type encoder uint8

const (
	encSlow encoder = iota // ConvertElement of the source bits
	encF64
	encF32
	encBF16
	encF16
	encSigned   // float → signed integer: truncate, saturate
	encUnsigned // float → unsigned integer
	encPred     // "≠ 0"
	encInt      // integer → integer: the low bytes
)

// NewConverter returns a Converter from elements of type src stored sbits wide to
// elements of type dst stored dbits wide. The widths must be 8, 16, 32 or 64 and at
// least the types' own widths (wider is layout's E(n)); the pair must satisfy
// [CanConvert].
func NewConverter(dst layout.DType, dbits int, src layout.DType, sbits int) (*Converter, error) {
	if !CanConvert(dst, src) {
		return nil, fmt.Errorf("buffer: no conversion from %s to %s", src, dst)
	}
	for _, w := range [...]struct {
		dt   layout.DType
		bits int
	}{{dst, dbits}, {src, sbits}} {
		if (w.bits != 8 && w.bits != 16 && w.bits != 32 && w.bits != 64) || w.bits < w.dt.Bits() {
			return nil, fmt.Errorf("buffer: a converter cannot store %s in %d bits", w.dt, w.bits)
		}
	}
	c := &Converter{dt: dst, st: src, dbits: dbits, sbits: sbits}
	if sbits == 8 {
		c.table = make([]uint64, 256)
		for b := range c.table {
			c.table[b] = Widen(dst, dbits, ConvertElement(dst, src, uint64(b)))
		}
		return c, nil
	}
	if src.Bits() == sbits {
		c.dec = decoderOf(src)
	}
	c.halves = (dst == layout.BF16 && src == layout.F16 || dst == layout.F16 && src == layout.BF16) && dbits == 16 && sbits == 16
	if dst.Bits() == dbits && src.Bits() == sbits {
		c.direct = directLoops[[2]layout.DType{dst, src}]
	}
	if c.dec != decNone && (dst.Bits() == dbits || dst == layout.Pred && dbits == 8) {
		c.enc = c.encoderOf(dst, c.dec == decSigned || c.dec == decUnsigned)
		c.intToFloat = (c.dec == decSigned || c.dec == decUnsigned) && dst.IsFloat()
	}
	return c, nil
}

func decoderOf(src layout.DType) decoder {
	switch {
	case src == layout.F32:
		return decF32
	case src == layout.F64:
		return decF64
	case src == layout.BF16:
		return decBF16
	case src == layout.F16:
		return decF16
	case src.IsSigned():
		return decSigned
	case src.IsUnsigned():
		return decUnsigned
	}
	return decNone
}

func (c *Converter) encoderOf(dst layout.DType, fromInt bool) encoder {
	switch {
	case dst == layout.F64:
		return encF64
	case dst == layout.F32:
		return encF32
	case dst == layout.BF16:
		return encBF16
	case dst == layout.F16:
		return encF16
	case dst == layout.Pred:
		return encPred
	case dst.IsInteger() && fromInt:
		return encInt
	case dst.IsSigned():
		lo, hi, _, _ := intBounds(dst)
		c.ilo, c.ihi, c.lo, c.hi = lo, hi, float64(lo), float64(hi)
		return encSigned
	case dst.IsUnsigned():
		_, _, _, uhi := intBounds(dst)
		c.uhi, c.hi = uhi, float64(uhi)
		return encUnsigned
	}
	return encSlow
}

// Convert converts the first n elements of src into the first n of dst. It panics if
// either slice is shorter than n elements.
func (c *Converter) Convert(dst, src []byte, n int) {
	if n <= 0 {
		return
	}
	_, _ = dst[n*c.dbits/8-1], src[n*c.sbits/8-1]
	switch {
	case c.table != nil:
		c.lookup(dst, src, n)
	case c.halves:
		c.convertHalves(dst, src, n)
	case c.direct != nil:
		if !c.direct(dst, src, n) { // NaNs met: ConvertElement decides their bits
			for i := range n {
				if math.IsNaN(decodeFloat(c.st, LoadBits(src, int64(i), c.sbits))) {
					c.slow(dst, src, i)
				}
			}
		}
	case c.dec == decNone:
		for i := range n {
			c.slow(dst, src, i)
		}
	default:
		var vals [chunk]uint64
		for i := 0; i < n; i += chunk {
			m := min(chunk, n-i)
			c.decode(&vals, src[i*c.sbits/8:], m)
			c.encode(dst[i*c.dbits/8:], &vals, src[i*c.sbits/8:], m)
		}
	}
}

var le = binary.LittleEndian

// chunk is the elements decoded at a time: the 2 KiB of values stay in L1.
const chunk = 256

func (c *Converter) slow(dst, src []byte, i int) {
	v := ConvertElement(c.dt, c.st, LoadBits(src, int64(i), c.sbits))
	StoreBits(dst, int64(i), c.dbits, Widen(c.dt, c.dbits, v))
}

func (c *Converter) lookup(dst, src []byte, n int) {
	t := (*[256]uint64)(c.table)
	src = src[:n]
	i := 0
	switch c.dbits {
	case 16:
		for ; i+64 <= n; i += 64 {
			lookup16((*[128]byte)(dst[2*i:]), (*[64]byte)(src[i:]), t)
		}
	case 32:
		for ; i+64 <= n; i += 64 {
			lookup32((*[256]byte)(dst[4*i:]), (*[64]byte)(src[i:]), t)
		}
	}
	for ; i < n; i++ {
		switch v := t[src[i]]; c.dbits {
		case 8:
			dst[i] = byte(v)
		case 16:
			le.PutUint16(dst[2*i:], uint16(v))
		case 32:
			le.PutUint32(dst[4*i:], uint32(v))
		default:
			le.PutUint64(dst[8*i:], v)
		}
	}
}

// lookup16 and lookup32 convert 64 bytes through the table; in blocks over array
// pointers the compiler drops the bounds checks and keeps the loop in registers.
//
//go:noinline
func lookup16(dst *[128]byte, src *[64]byte, t *[256]uint64) {
	for i, b := range src {
		le.PutUint16(dst[2*i:], uint16(t[b]))
	}
}

//go:noinline
func lookup32(dst *[256]byte, src *[64]byte, t *[256]uint64) {
	for i, b := range src {
		le.PutUint32(dst[4*i:], uint32(t[b]))
	}
}

// convertHalves converts between bf16 and f16 by rebiasing the exponent (they are 112
// apart) wherever both formats hold the value as a normal number, which is nearly
// every weight, four 16-bit lanes of a word at a time; zeros keep their sign. Words
// with another lane (subnormal, out of range, Inf, NaN) go element by element through
// the exact f32 value, and NaNs through ConvertElement.
func (c *Converter) convertHalves(dst, src []byte, n int) {
	src, dst = src[:2*n], dst[:2*n]
	toF16 := c.st == layout.BF16
	for i := 0; i < n; {
		i += halvesWords(dst[2*i:], src[2*i:], toF16)
		for end := min(i+4, n); i < end; i++ { // the word that stopped it, or the tail
			if !c.half(dst, src, i, toF16) {
				c.slow(dst, src, i)
			}
		}
	}
}

// halvesWords converts blocks of 64 elements, four lanes of a word at a time, until a
// word has a lane the word conversion does not take, and returns the elements it
// converted. The blocks work over array pointers, so that the compiler keeps the lane
// arithmetic in registers and drops the bounds checks.
func halvesWords(dst, src []byte, toF16 bool) int {
	i := 0
	for ; len(src)-i >= 128 && len(dst)-i >= 128; i += 128 {
		var done int
		if toF16 {
			done = bf16ToF16Block((*[128]byte)(dst[i:]), (*[128]byte)(src[i:]))
		} else {
			done = f16ToBF16Block((*[128]byte)(dst[i:]), (*[128]byte)(src[i:]))
		}
		if done < 128 {
			return (i + done) / 2
		}
	}
	return i / 2
}

const (
	ones16  = 0x0001_0001_0001_0001 // one in each 16-bit lane
	signs16 = 0x8000 * ones16
)

// bf16ToF16Block converts 64 elements a word at a time, if every lane is zero or has
// an exponent in 113…142 (f16's normal range: exact), and returns the bytes it did.
//
//go:noinline
func bf16ToF16Block(dst, src *[128]byte) int {
	for i := 0; i < 128; i += 8 {
		x := le.Uint64(src[i:])
		v := x &^ signs16
		z := ^(v + 0x7fff*ones16) & signs16 // sign bit set in zero lanes
		ge := v + (0x8000-0x3880)*ones16    // exponent ≥ 113
		gt := v + (0x8000-0x4780)*ones16    // exponent ≥ 143
		if (ge&^gt|z)&signs16 != signs16 {
			return i
		}
		v |= z >> 15 * 0x3800 // zero lanes rebias to zero
		le.PutUint64(dst[i:], x&signs16|(v-0x3800*ones16)<<3)
	}
	return 128
}

// f16ToBF16Block converts 64 elements a word at a time, if every lane is zero or
// normal, dropping three mantissa bits to nearest even, and returns the bytes it did.
//
//go:noinline
func f16ToBF16Block(dst, src *[128]byte) int {
	for i := 0; i < 128; i += 8 {
		x := le.Uint64(src[i:])
		v := x &^ signs16
		z := ^(v + 0x7fff*ones16) & signs16
		ge := v + (0x8000-0x0400)*ones16  // normal or more
		inf := v + (0x8000-0x7c00)*ones16 // Inf or NaN
		if (ge&^inf|z)&signs16 != signs16 {
			return i
		}
		// The exponent moves up by 112.
		r := (v+3*ones16+v>>3&ones16)>>3&(0x1fff*ones16) + 0x3800*ones16
		le.PutUint64(dst[i:], x&signs16|r&^(z>>15*0xffff))
	}
	return 128
}

// half converts element i between bf16 and f16 through its exact f32 value unless it
// is a NaN, and reports whether it did.
func (c *Converter) half(dst, src []byte, i int, toF16 bool) bool {
	h := le.Uint16(src[2*i:])
	var f uint32
	if toF16 {
		f = uint32(h) << 16
	} else {
		f = simd.F16BitsToF32(h)
	}
	if f&0x7fffffff > 0x7f800000 {
		return false
	}
	if toF16 {
		h = simd.F32ToF16Bits(f)
	} else {
		h = simd.F32ToBF16Bits(f)
	}
	le.PutUint16(dst[2*i:], h)
	return true
}

// directLoops convert numpy's default types (float64, int64) to XLA's (f32, bf16, s32),
// f32 to f64 and f32 ↔ s32 in one pass, faster than the decode and encode passes. They
// report false if they met a NaN, whose bits only ConvertElement gives; the NaNs are
// then converted again.
var directLoops = map[[2]layout.DType]func(dst, src []byte, n int) bool{
	{layout.F32, layout.F64}: func(dst, src []byte, n int) bool {
		src, dst = src[:8*n], dst[:4*n]
		nan, i := false, 0
		for ; i+32 <= n; i += 32 {
			nan = f64ToF32Block((*[128]byte)(dst[4*i:]), (*[256]byte)(src[8*i:])) || nan
		}
		for ; i < n; i++ {
			f := math.Float64frombits(le.Uint64(src[8*i:]))
			nan = nan || f != f
			le.PutUint32(dst[4*i:], math.Float32bits(float32(f)))
		}
		return !nan
	},
	{layout.BF16, layout.F64}: func(dst, src []byte, n int) bool {
		src, dst = src[:8*n], dst[:2*n]
		nan, i := false, 0
		for ; i+32 <= n; i += 32 {
			nan = f64ToBF16Block((*[64]byte)(dst[2*i:]), (*[256]byte)(src[8*i:])) || nan
		}
		for ; i < n; i++ {
			f := math.Float64frombits(le.Uint64(src[8*i:]))
			nan = nan || f != f
			le.PutUint16(dst[2*i:], simd.F32ToBF16Bits(roundToOdd32(f)))
		}
		return !nan
	},
	{layout.F64, layout.F32}: func(dst, src []byte, n int) bool {
		src, dst = src[:4*n], dst[:8*n]
		nan := false
		for i := range n {
			f := float64(math.Float32frombits(le.Uint32(src[4*i:])))
			nan = nan || f != f
			le.PutUint64(dst[8*i:], math.Float64bits(f))
		}
		return !nan
	},
	{layout.S32, layout.S64}: func(dst, src []byte, n int) bool {
		src, dst = src[:8*n], dst[:4*n]
		for i := range n {
			le.PutUint32(dst[4*i:], uint32(le.Uint64(src[8*i:])))
		}
		return true
	},
	{layout.F32, layout.S32}: func(dst, src []byte, n int) bool {
		src, dst = src[:4*n], dst[:4*n]
		for i := range n {
			le.PutUint32(dst[4*i:], math.Float32bits(float32(int32(le.Uint32(src[4*i:])))))
		}
		return true
	},
	{layout.S32, layout.F32}: func(dst, src []byte, n int) bool {
		src, dst = src[:4*n], dst[:4*n]
		for i := range n {
			f := math.Float32frombits(le.Uint32(src[4*i:]))
			var r int32
			switch {
			case f != f:
			case f <= math.MinInt32:
				r = math.MinInt32
			case f >= math.MaxInt32: // rounds to 2^31
				r = math.MaxInt32
			default:
				r = int32(f)
			}
			le.PutUint32(dst[4*i:], uint32(r))
		}
		return true
	},
}

// f64ToF32Block converts 32 elements; in a block over array pointers the loop loses its
// bounds checks (BenchmarkConverter).
//
//go:noinline
func f64ToF32Block(dst *[128]byte, src *[256]byte) (nan bool) {
	for i := 0; i < 32; i++ {
		f := math.Float64frombits(le.Uint64(src[8*i:]))
		nan = nan || f != f
		le.PutUint32(dst[4*i:], math.Float32bits(float32(f)))
	}
	return nan
}

// f64ToBF16Block converts 32 elements, rounding once (through f32 rounded to odd).
//
//go:noinline
func f64ToBF16Block(dst *[64]byte, src *[256]byte) (nan bool) {
	for i := 0; i < 32; i++ {
		f := math.Float64frombits(le.Uint64(src[8*i:]))
		nan = nan || f != f
		le.PutUint16(dst[2*i:], simd.F32ToBF16Bits(roundToOdd32(f)))
	}
	return nan
}

// decode reads m source elements into vals: float64 bits for floats (exact), the
// int64 or uint64 value for integers.
func (c *Converter) decode(vals *[chunk]uint64, src []byte, m int) {
	v := vals[:m]
	switch c.dec {
	case decF32:
		src = src[:4*m]
		for i := range v {
			v[i] = math.Float64bits(float64(math.Float32frombits(le.Uint32(src[4*i:]))))
		}
	case decF64:
		src = src[:8*m]
		for i := range v {
			v[i] = le.Uint64(src[8*i:])
		}
	case decBF16:
		src = src[:2*m]
		for i := range v {
			v[i] = math.Float64bits(float64(math.Float32frombits(uint32(le.Uint16(src[2*i:])) << 16)))
		}
	case decF16:
		src = src[:2*m]
		for i := range v {
			v[i] = math.Float64bits(float64(math.Float32frombits(simd.F16BitsToF32(le.Uint16(src[2*i:])))))
		}
	case decSigned:
		switch c.sbits {
		case 16:
			for i := range v {
				v[i] = uint64(int16(le.Uint16(src[2*i:])))
			}
		case 32:
			for i := range v {
				v[i] = uint64(int32(le.Uint32(src[4*i:])))
			}
		default:
			for i := range v {
				v[i] = le.Uint64(src[8*i:])
			}
		}
	case decUnsigned:
		switch c.sbits {
		case 16:
			for i := range v {
				v[i] = uint64(le.Uint16(src[2*i:]))
			}
		case 32:
			for i := range v {
				v[i] = uint64(le.Uint32(src[4*i:]))
			}
		default:
			for i := range v {
				v[i] = le.Uint64(src[8*i:])
			}
		}
	}
	if c.intToFloat {
		c.intsToFloat64(v)
	}
}

// nanMark stands for an integer that float64 would round (beyond 2^53): a NaN, so the
// encoders send it to ConvertElement like the NaNs they already treat so.
const nanMark = 0x7ff8_dead_0000_0001

func (c *Converter) intsToFloat64(v []uint64) {
	if c.dec == decSigned {
		for i, x := range v {
			if x+1<<53 > 1<<54 { // |int64(x)| > 2^53
				v[i] = nanMark
			} else {
				v[i] = math.Float64bits(float64(int64(x)))
			}
		}
		return
	}
	for i, x := range v {
		if x > 1<<53 {
			v[i] = nanMark
		} else {
			v[i] = math.Float64bits(float64(x))
		}
	}
}

// encode writes m destination elements from vals; src holds the same elements'
// source bits for those that go through ConvertElement.
func (c *Converter) encode(dst []byte, vals *[chunk]uint64, src []byte, m int) {
	v := vals[:m]
	if (c.dec == decSigned || c.dec == decUnsigned) && !c.intToFloat {
		c.encodeInt(dst, v, src)
		return
	}
	// NaNs are written like numbers here, then again by ConvertElement: a call in these
	// loops would make the compiler spill their registers.
	nan := false
	switch c.enc {
	case encF64:
		dst = dst[:8*m]
		for i, x := range v {
			nan = nan || x<<1 > 0x7ff0<<49
			le.PutUint64(dst[8*i:], x)
		}
	case encF32:
		dst = dst[:4*m]
		for i, x := range v {
			f := math.Float64frombits(x)
			nan = nan || f != f
			le.PutUint32(dst[4*i:], math.Float32bits(float32(f)))
		}
	case encBF16:
		dst = dst[:2*m]
		for i, x := range v {
			f := math.Float64frombits(x)
			nan = nan || f != f
			le.PutUint16(dst[2*i:], simd.F32ToBF16Bits(roundToOdd32(f)))
		}
	case encF16:
		dst = dst[:2*m]
		for i, x := range v {
			f := math.Float64frombits(x)
			nan = nan || f != f
			le.PutUint16(dst[2*i:], simd.F32ToF16Bits(roundToOdd32(f)))
		}
	case encSigned:
		for i, x := range v {
			f := math.Float64frombits(x)
			var r int64
			switch {
			case f != f:
				r = 0
			case f <= c.lo:
				r = c.ilo
			case f >= c.hi: // float64(hi) may round up to 2^63: still saturate
				r = c.ihi
			default:
				r = int64(f)
			}
			v[i] = uint64(r)
		}
		putLow(dst, v, c.dbits)
	case encUnsigned:
		for i, x := range v {
			f := math.Float64frombits(x)
			var r uint64
			switch {
			case f != f || f <= 0:
				r = 0
			case f >= c.hi:
				r = c.uhi
			default:
				r = uint64(f)
			}
			v[i] = r
		}
		putLow(dst, v, c.dbits)
	case encPred:
		for i, x := range v {
			dst[i] = 0
			if x<<1 != 0 { // ±0 is false; NaN is true
				dst[i] = 1
			}
		}
	default:
		for i := range v {
			c.slow(dst, src, i)
		}
	}
	for i := 0; nan && i < m; i++ {
		if v[i]<<1 > 0x7ff0<<49 {
			c.slow(dst, src, i)
		}
	}
}

// encodeInt encodes integer values (int64 or uint64 bits).
func (c *Converter) encodeInt(dst []byte, v []uint64, src []byte) {
	switch c.enc {
	case encInt:
		putLow(dst, v, c.dbits)
	case encPred:
		for i, x := range v {
			dst[i] = 0
			if x != 0 {
				dst[i] = 1
			}
		}
	default:
		for i := range v {
			c.slow(dst, src, i)
		}
	}
}

// round16 rounds f32 bits to the 16-bit float destination.
func (c *Converter) round16(b uint32) uint16 {
	if c.enc == encF16 {
		return simd.F32ToF16Bits(b)
	}
	return simd.F32ToBF16Bits(b)
}

// putLow stores the low bits of each x as the elements of dst, bits wide.
func putLow(dst []byte, v []uint64, bits int) {
	switch bits {
	case 8:
		dst = dst[:len(v)]
		for i, x := range v {
			dst[i] = byte(x)
		}
	case 16:
		dst = dst[:2*len(v)]
		for i, x := range v {
			le.PutUint16(dst[2*i:], uint16(x))
		}
	case 32:
		dst = dst[:4*len(v)]
		for i, x := range v {
			le.PutUint32(dst[4*i:], uint32(x))
		}
	default:
		dst = dst[:8*len(v)]
		for i, x := range v {
			le.PutUint64(dst[8*i:], x)
		}
	}
}

// roundToOdd32 returns the f32 bits of f rounded toward zero with the lowest bit set
// when inexact ("round to odd"). Rounding that to 16 bits to nearest even gives the
// same bits as rounding f once: f32 keeps more than two bits beyond bf16's and f16's.
func roundToOdd32(f float64) uint32 {
	r := float32(f)
	b := math.Float32bits(r)
	// Branch-free: on real data, which way float32 rounded is a coin toss.
	var away, inexact uint32
	if math.Abs(float64(r)) > math.Abs(f) { // rounded away from zero (to ±Inf included)
		away = 1
	}
	if float64(r) != f {
		inexact = 1
	}
	return (b - away) | inexact
}
