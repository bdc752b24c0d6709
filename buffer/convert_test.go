package buffer

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
)

// The references here are independent of the code under test: they round with float64
// hardware arithmetic (adding and subtracting a power of two so that the sum's last
// place is the target's quantum) instead of integer bit manipulation.

// refRound rounds |x| (finite, float64-exact) to a multiple of 2^qexp, ties to even.
func refRound(a float64, qexp int) float64 {
	c := math.Float64frombits(uint64(qexp+52+1023) << 52) // 2^(qexp+52)
	return (a + c) - c
}

// refF32ToBF16 is the value of f32 bits u rounded to nearest even in bf16 (non-NaN
// inputs), ±Inf on overflow.
func refF32ToBF16(u uint32) float64 {
	x := float64(math.Float32frombits(u))
	a := math.Abs(x)
	if !math.IsInf(a, 0) {
		e := int(u>>23&0xFF) - 127
		if e < -126 {
			e = -126 // f32 subnormals share the quantum of the smallest binade
		}
		if a = refRound(a, e-7); a >= 0x1p128 {
			a = math.Inf(1)
		}
	}
	return math.Copysign(a, x)
}

// refF32ToF16 is the value of f32 bits u rounded to nearest even in binary16 (non-NaN
// inputs), ±Inf on overflow.
func refF32ToF16(u uint32) float64 {
	x := float64(math.Float32frombits(u))
	a := math.Abs(x)
	if a >= 65536 {
		return math.Copysign(math.Inf(1), x)
	}
	e := int(u>>23&0xFF) - 127
	if e < -14 {
		e = -14
	}
	if a = refRound(a, e-10); a >= 65536 {
		a = math.Inf(1)
	}
	return math.Copysign(a, x)
}

// valueTable lists the values of every 16-bit pattern, from the field formula.
func valueTable(value func(uint16) float64) []float64 {
	t := make([]float64, 1<<16)
	for i := range t {
		t[i] = value(uint16(i))
	}
	return t
}

// refBF16Value and refF16Value compute a 16-bit float's value from its fields.
func refBF16Value(h uint16) float64 {
	return refFieldValue(uint64(h), 8, 7, 127)
}

func refF16Value(h uint16) float64 { return refFieldValue(uint64(h), 5, 10, 15) }

func refFieldValue(b uint64, eb, mb uint, bias int) float64 {
	s := b >> (eb + mb) & 1
	e := int(b >> mb & (1<<eb - 1))
	m := float64(b & (1<<mb - 1))
	var v float64
	switch {
	case e == 1<<eb-1 && m == 0:
		v = math.Inf(1)
	case e == 1<<eb-1:
		v = math.NaN()
	case e == 0:
		v = m * math.Ldexp(1, 1-bias-int(mb))
	default:
		v = (1 + m/float64(uint64(1)<<mb)) * math.Ldexp(1, e-bias)
	}
	if s == 1 {
		v = -v
	}
	return v
}

// Every 16-bit pattern of bf16 and f16 widens to its value (NaN to a NaN of its sign)
// and narrows back to itself; a NaN narrows back to a quiet NaN of its sign.
func TestHalfRoundTripAll(t *testing.T) {
	for _, c := range []struct {
		name       string
		widen      func(uint16) float32
		narrow     func(float32) uint16
		ref        func(uint16) float64
		inf, quiet uint16 // the bits of +Inf, the quiet bit of a NaN
	}{
		{"bf16", BF16ToF32, F32ToBF16, refBF16Value, 0x7F80, 0x40},
		{"f16", F16ToF32, F32ToF16, refF16Value, 0x7C00, 0x200},
	} {
		for i := range 1 << 16 {
			h := uint16(i)
			f := c.widen(h)
			want := c.ref(h)
			if math.IsNaN(want) {
				if !math.IsNaN(float64(f)) || math.Signbit(float64(f)) != (h&0x8000 != 0) {
					t.Fatalf("%s %#04x → %v, want a NaN of the same sign", c.name, h, f)
				}
				back := c.narrow(f)
				if back&0x7FFF <= c.inf || back&c.quiet == 0 || back&0x8000 != h&0x8000 {
					t.Fatalf("%s NaN %#04x → f32 → %#04x, want a quiet NaN of the same sign", c.name, h, back)
				}
				continue
			}
			if float64(f) != want || math.Signbit(float64(f)) != math.Signbit(want) {
				t.Fatalf("%s %#04x → %v, want %v", c.name, h, f, want)
			}
			if back := c.narrow(f); back != h {
				t.Fatalf("%s %#04x → f32 %v → %#04x", c.name, h, f, back)
			}
		}
	}
}

// sweepF32 checks conv on every float32 bit pattern, split across two goroutines: the
// value of the result (from the independent field formula) must be the reference's
// rounded value, sign included; NaN must give a quiet NaN of the same sign. Outside the
// long run (testenv.Long) it takes the patterns of the f32 exponents exps (both signs)
// and every 64th block of 2^16 patterns.
func sweepF32(t *testing.T, name string, conv func(uint32) uint16, ref func(uint32) float64, values []float64, quiet uint16, exps []int) {
	if testing.Short() {
		t.Skip("exhaustive 2^32 sweep skipped in -short mode")
	}
	long := testenv.Long()
	var wg sync.WaitGroup
	errs := make([]string, 2)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo := uint64(g) << 31
			for u64 := lo; u64 < lo+1<<31; u64++ {
				if hi := uint16(u64 >> 16); !long && hi%64 != 0 && !slices.Contains(exps, int(hi>>7&0xff)) {
					u64 |= 0xffff // the next block
					continue
				}
				u := uint32(u64)
				got := conv(u)
				v := values[got]
				if u&0x7FFFFFFF > 0x7F800000 {
					if !math.IsNaN(v) || got&quiet == 0 || got>>15 != uint16(u>>31) {
						errs[g] = name + ": NaN input " + hex32(u) + " gave " + hex16(got)
						return
					}
					continue
				}
				if want := ref(u); v != want || math.Signbit(v) != math.Signbit(want) {
					errs[g] = name + ": " + hex32(u) + " gave " + hex16(got)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
}

func hex32(u uint32) string { return "0x" + hexN(uint64(u), 8) }
func hex16(u uint16) string { return "0x" + hexN(uint64(u), 4) }
func hexN(u uint64, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = digits[u&15]
		u >>= 4
	}
	return string(b)
}

// Outside the long run the sweeps take the f32 exponents where bf16 rounds to zero,
// goes subnormal or overflows (0, 1, 254, 255), and every 64th block of 2^16 patterns.
func TestF32ToBF16All(t *testing.T) {
	sweepF32(t, "f32→bf16", func(u uint32) uint16 { return F32ToBF16(math.Float32frombits(u)) }, refF32ToBF16, valueTable(refBF16Value), 0x40,
		[]int{0, 1, 254, 255})
}

// For f16: the exponents where it rounds to zero or to its least subnormal (102, 103),
// turns normal (112, 113) and overflows (142, 143), besides those of bf16.
func TestF32ToF16All(t *testing.T) {
	sweepF32(t, "f32→f16", func(u uint32) uint16 { return F32ToF16(math.Float32frombits(u)) }, refF32ToF16, valueTable(refF16Value), 0x200,
		[]int{0, 1, 102, 103, 112, 113, 142, 143, 254, 255})
}

// TestF32ToNarrowSample runs the same references on a sample in -short mode too.
func TestF32ToNarrowSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bv, hv := valueTable(refBF16Value), valueTable(refF16Value)
	for range 1 << 20 {
		u := r.Uint32()
		if u&0x7FFFFFFF > 0x7F800000 {
			continue
		}
		if got, want := bv[F32ToBF16(math.Float32frombits(u))], refF32ToBF16(u); got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("f32→bf16 %s: got %v want %v", hex32(u), got, want)
		}
		if got, want := hv[F32ToF16(math.Float32frombits(u))], refF32ToF16(u); got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("f32→f16 %s: got %v want %v", hex32(u), got, want)
		}
	}
}

// Known values, checked by hand.
func TestNarrowKnown(t *testing.T) {
	for _, c := range []struct {
		x        float32
		bf, half uint16
	}{
		{1, 0x3F80, 0x3C00},
		{-2, 0xC000, 0xC000},
		{65504, 0x4780, 0x7BFF},
		{65520, 0x4780, 0x7C00}, // f16: the midpoint to 65536 rounds to Inf
		{float32(math.Inf(-1)), 0xFF80, 0xFC00},
		{0x1p-24, 0x3380, 0x0001},
		{0x1p-25, 0x3300, 0x0000},                          // f16: tie to even (0)
		{0x1.8p-25, 0x3340, 0x0001},                        // f16: above the tie
		{math.Float32frombits(0x3F808000), 0x3F80, 0x3C04}, // bf16 tie to even (down)
		{math.Float32frombits(0x3F818000), 0x3F82, 0x3C0C}, // bf16 tie to even (up)
	} {
		if got := F32ToBF16(c.x); got != c.bf {
			t.Errorf("F32ToBF16(%v) = %#04x, want %#04x", c.x, got, c.bf)
		}
		if got := F32ToF16(c.x); got != c.half {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.x, got, c.half)
		}
	}
}

// refTable lists the finite non-negative values of a minifloat by encoding.
type refTable struct {
	vals    []float64 // NaN where the encoding is not finite
	maxBits uint64
	next    float64 // one ulp above the largest finite value: stands for overflow
}

func newRefTable(f minifloat) refTable {
	w := f.ebits + f.mbits + 1
	rt := refTable{vals: make([]float64, 1<<(w-1))}
	maxVal := -1.0
	for b := range rt.vals {
		v := f.decode(uint64(b))
		if math.IsInf(v, 0) {
			v = math.NaN()
		}
		rt.vals[b] = v
		if v > maxVal {
			rt.maxBits, maxVal = uint64(b), v
		}
	}
	rt.next = 2*maxVal - rt.vals[rt.maxBits-1]
	return rt
}

// nearest finds the nearest value to |x| by scanning every encoding: ties go to the
// even encoding, and the virtual value one ulp above the largest finite one stands
// for overflow (its parity decides the tie at the midpoint, as in ml_dtypes' bit-level
// rounding).
func (rt refTable) nearest(x float64) (bits uint64, overflow bool) {
	a := math.Abs(x)
	if a > rt.next {
		return 0, true
	}
	var best uint64
	bestDiff := math.Inf(1)
	for b, v := range rt.vals {
		if math.IsNaN(v) {
			continue
		}
		if d := math.Abs(v - a); d < bestDiff || d == bestDiff && b&1 == 0 {
			best, bestDiff = uint64(b), d
		}
	}
	if d := math.Abs(rt.next - a); d < bestDiff || d == bestDiff && (rt.maxBits+1)&1 == 0 {
		return 0, true
	}
	return best, false
}

func TestMinifloatAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, mf := range minifloats {
		f := mf.f
		if f.mbits > 4 { // f16, bf16: covered above
			continue
		}
		rt := newRefTable(f)
		t.Run(mf.dt.String(), func(t *testing.T) {
			inputs := []float64{0, math.SmallestNonzeroFloat64, 1e-30, 0.5, 1, 1.5, 2.5, 3, 448, 449, 464, 465,
				480, 57344, 61439, 61440, 65504, 1e9, 6, 7, 8, 240, 256}
			for b := uint64(0); b < 1<<(f.ebits+f.mbits+1); b++ { // every value and every midpoint
				v := f.decode(b)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				inputs = append(inputs, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, 0))
				if w := f.decode(b + 1); !math.IsNaN(w) && !math.IsInf(w, 0) && b+1 < 1<<(f.ebits+f.mbits) {
					mid := (v + w) / 2
					inputs = append(inputs, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)))
				}
			}
			for range 200000 {
				inputs = append(inputs, float64(math.Float32frombits(r.Uint32()&0x7FFFFFFF)))
			}
			for _, x := range inputs {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					continue
				}
				for _, s := range []float64{1, -1} {
					v := s * x
					got := f.encode(v)
					want, over := rt.nearest(v)
					if over {
						want = f.overflow(math.Signbit(v))
					} else if math.Signbit(v) && !(f.kind == kindFNUZ && want == 0) {
						want |= f.signBit()
					}
					if got != want {
						t.Fatalf("encode(%v) = %#x, want %#x (overflow %v)", v, got, want, over)
					}
				}
			}
		})
	}
}

func TestF8RoundTripAll(t *testing.T) {
	for _, mf := range minifloats {
		f := mf.f
		for b := uint64(0); b < 1<<(f.ebits+f.mbits+1); b++ {
			v := f.decode(b)
			back := f.encode(v)
			if math.IsNaN(v) {
				if !math.IsNaN(f.decode(back)) && f.kind != kindNoNaN {
					t.Fatalf("%v: NaN %#x → %#x is not NaN", mf.dt, b, back)
				}
				continue
			}
			if back != b && !(v == 0 && f.kind == kindFNUZ) {
				t.Fatalf("%v: %#x → %v → %#x", mf.dt, b, v, back)
			}
			// Through f32 and ConvertElement as well.
			if got := ConvertElement(mf.dt, layout.F32, ConvertElement(layout.F32, mf.dt, b)); got != b {
				t.Fatalf("%v: %#x → f32 → %#x", mf.dt, b, got)
			}
		}
	}
	for b := uint64(0); b < 256; b++ {
		v := e8m0Decode(b)
		if got := e8m0Encode(v); got != b {
			t.Fatalf("e8m0: %#x → %v → %#x", b, v, got)
		}
	}
}

func TestF8Known(t *testing.T) {
	for _, c := range []struct {
		x    float32
		e4m3 uint8
		e5m2 uint8
	}{
		{1, 0x38, 0x3C},
		{-1, 0xB8, 0xBC},
		{448, 0x7E, 0x5F},
		{464, 0x7E, 0x5F},                   // e4m3fn: the midpoint to "480" rounds to 448 (even)
		{465, 0x7F, 0x5F},                   // e4m3fn: beyond → NaN
		{-1000, 0xFF, 0xE4},                 // e4m3fn: NaN keeps the sign
		{57344, 0x7F, 0x7B},                 // e5m2 max
		{61439, 0x7F, 0x7B},                 // below the midpoint
		{61440, 0x7F, 0x7C},                 // e5m2: the midpoint rounds to Inf (odd max)
		{float32(math.Inf(1)), 0x7F, 0x7C},  // e4m3fn has no Inf
		{float32(math.Inf(-1)), 0xFF, 0xFC}, //
		{float32(math.NaN()), 0x7F, 0x7E},   // quiet NaN
		{0x1p-9, 0x01, 0x18},                // e4m3fn smallest subnormal
		{0x1p-16, 0x00, 0x01},               // e5m2 smallest subnormal
		{float32(math.Copysign(0, -1)), 0x80, 0x80},
	} {
		if got := F32ToF8E4M3FN(c.x); got != c.e4m3 {
			t.Errorf("F32ToF8E4M3FN(%v) = %#02x, want %#02x", c.x, got, c.e4m3)
		}
		if got := F32ToF8E5M2(c.x); got != c.e5m2 {
			t.Errorf("F32ToF8E5M2(%v) = %#02x, want %#02x", c.x, got, c.e5m2)
		}
	}
	if v := F8E4M3FNToF32(0x7E); v != 448 {
		t.Errorf("e4m3fn 0x7E = %v", v)
	}
	if v := F8E4M3FNToF32(0xFF); !math.IsNaN(float64(v)) {
		t.Errorf("e4m3fn 0xFF = %v, want NaN", v)
	}
	if v := F8E4M3FNToF32(0x78); v != 256 {
		t.Errorf("e4m3fn 0x78 = %v, want 256 (exponent 15 is finite)", v)
	}
	if v := F8E5M2ToF32(0x7C); !math.IsInf(float64(v), 1) {
		t.Errorf("e5m2 0x7C = %v, want +Inf", v)
	}
	// f4e2m1fn: saturates, NaN becomes -0 (0b1000).
	f4 := layout.F4E2M1FN
	for _, c := range []struct {
		x    float64
		want uint64
	}{{6, 0x7}, {100, 0x7}, {-100, 0xF}, {math.Inf(1), 0x7}, {math.NaN(), 0x8}, {0.25, 0x0}, {0.26, 0x1}, {0.75, 0x2}, {5, 0x6}} {
		if got := ConvertElement(f4, layout.F64, math.Float64bits(c.x)); got != c.want {
			t.Errorf("f4e2m1fn(%v) = %#x, want %#x", c.x, got, c.want)
		}
	}
}

func TestConvertElementIntegers(t *testing.T) {
	f64 := func(v float64) uint64 { return math.Float64bits(v) }
	for _, c := range []struct {
		dst, src layout.DType
		in, want uint64
	}{
		{layout.S8, layout.S32, 0x12345680, 0x80},               // wraps
		{layout.S32, layout.S8, 0x80, 0xFFFFFF80},               // sign-extends
		{layout.U32, layout.S8, 0xFF, 0xFFFFFFFF},               // -1 → 2^32-1
		{layout.S4, layout.S8, 0xF9, 0x9},                       // -7 → s4 -7
		{layout.S8, layout.S4, 0x9, 0xF9},                       // s4 -7 → -7
		{layout.U8, layout.S4, 0x8, 0xF8},                       // s4 -8 → wraps
		{layout.Pred, layout.S32, 2, 1},                         //
		{layout.S32, layout.Pred, 1, 1},                         //
		{layout.U8, layout.Pred, 2, 1},                          // nonzero is true, as NumPy's bool
		{layout.U8, layout.Pred, 0xFF, 1},                       //
		{layout.F32, layout.Pred, 0x80, 0x3F800000},             //
		{layout.S8, layout.F64, f64(300.7), 0x7F},               // saturates
		{layout.S8, layout.F64, f64(-300.7), 0x80},              //
		{layout.S8, layout.F64, f64(-3.9), 0xFD},                // truncates toward zero
		{layout.U8, layout.F64, f64(-3.9), 0},                   //
		{layout.S32, layout.F64, f64(math.NaN()), 0},            //
		{layout.S64, layout.F64, f64(1e300), 1<<63 - 1},         //
		{layout.U64, layout.F64, f64(1e300), math.MaxUint64},    //
		{layout.U4, layout.F64, f64(20), 0xF},                   //
		{layout.S4, layout.F64, f64(-20), 0x8},                  //
		{layout.Pred, layout.F64, f64(math.NaN()), 1},           //
		{layout.F32, layout.S32, 0xFFFFFFFF, 0xBF800000},        // -1
		{layout.F32, layout.S32, 16777217, 0x4B800000},          // 2^24+1 → 2^24 (tie to even)
		{layout.F32, layout.U64, 1<<53 + 1, 0x5A000000},         // 2^53+1 → 2^53 (no double rounding)
		{layout.F32, layout.U64, 1<<60 + 1<<36, 0x5D800000},     // tie: down to even 2^60
		{layout.F32, layout.U64, 1<<60 + 1<<36 + 1, 0x5D800001}, // just above the tie: up (needs the sticky bit)
		{layout.F64, layout.U64, 1<<63 + 1<<10, 0x43E0000000000000},
		{layout.F64, layout.S64, 1 << 63, 0xC3E0000000000000}, // MinInt64
		{layout.BF16, layout.F32, 0x3F808001, 0x3F81},         // simd path
		{layout.F32, layout.BF16, 0x3F81, 0x3F810000},         //
		{layout.F8E4M3FN, layout.BF16, 0x43E0, 0x7E},          // 448
		{layout.F32, layout.F8E5M2, 0x7C, 0x7F800000},         // Inf
	} {
		if got := ConvertElement(c.dst, c.src, c.in); got != c.want {
			t.Errorf("ConvertElement(%v, %v, %#x) = %#x, want %#x", c.dst, c.src, c.in, got, c.want)
		}
	}
	if CanConvert(layout.C64, layout.F32) || !CanConvert(layout.C64, layout.C64) || CanConvert(layout.C128, layout.C128) {
		t.Error("CanConvert on complex types")
	}
}
