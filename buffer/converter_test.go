package buffer

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
)

// converterInputs returns source bit patterns for type st stored sbits wide: every
// pattern when sbits ≤ 16 (in order, shuffled, between zeros), else special values, values at the
// edges of every destination's range and rounding, and random bits and values.
func converterInputs(st layout.DType, sbits int, r *rand.Rand) []uint64 {
	var in []uint64
	if sbits <= 16 {
		for b := range uint64(1) << sbits {
			in = append(in, b)
		}
		// Again shuffled, and between zeros of both signs: word-at-a-time paths see every
		// pattern beside random others, and zeros beside numbers of one exponent. Outside
		// the long run (testenv.Long), a sample of 2^13 patterns takes the second and
		// third forms.
		shuffled := append([]uint64(nil), in...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		beside := in
		if !testenv.Long() && len(shuffled) > 1<<13 {
			shuffled = shuffled[:1<<13]
			beside = shuffled
		}
		var zeros []uint64
		for i, b := range beside {
			zeros = append(zeros, uint64(i%2)<<(sbits-1), b)
		}
		return append(append(in, shuffled...), zeros...)
	}
	edges := []float64{0, 1, 0.5, 1.5, 2.5, -0.5, -1.5, 127.5, 128, 255.5, 256, 32767.5, 32768, 65504,
		65519.99, 65520, 65535.5, 65536, 1 << 24, 1<<24 + 1, 1<<31 - 1, 1 << 31, 1<<31 + 0.5,
		1<<32 - 1, 1 << 32, 1 << 53, 1<<53 + 1, 1 << 63, 1 << 64, 3.3895314e38, 3.3961776e38,
		math.MaxFloat32, 1e39, math.MaxFloat64, math.Inf(1), 0x1p-126, 0x1p-133, 0x1p-149, 0x1p-150,
		0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-14, 0x1.0101p0, 0x1.00800001p0, 0x1.0080000000001p0,
		0x1.002p0, 0x1.0020000000001p0, 0x1.0100000001p0, 0x1.03p0 + 0x1p-30, 0x1.001ffffffffffp0, math.SmallestNonzeroFloat64}
	var ints []int64
	for _, e := range []int64{0, 1, 2, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 1<<24 + 1,
		1<<24 + 3, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<53 + 1, 1<<53 + 3, 0x0100_8000_0000_0001, 1<<55 + 1<<31 + 1,
		1<<63 - 1} {
		ints = append(ints, e, -e, e-1, -e-1)
	}
	switch {
	case st == layout.F32:
		for _, f := range edges {
			in = append(in, uint64(math.Float32bits(float32(f))), uint64(math.Float32bits(-float32(f))))
		}
		in = append(in, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345, 0x7fbfffff)
		for range 20000 {
			in = append(in, uint64(r.Uint32()), uint64(math.Float32bits(float32(r.NormFloat64()*1e6))))
		}
	case st == layout.F64:
		for _, f := range edges {
			in = append(in, math.Float64bits(f), math.Float64bits(-f))
		}
		for _, i := range ints {
			in = append(in, math.Float64bits(float64(i)))
		}
		in = append(in, 0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000001, 0xfff4000000000000)
		for range 20000 {
			in = append(in, r.Uint64(), math.Float64bits(r.NormFloat64()*1e9),
				math.Float64bits(math.Ldexp(1+r.Float64(), r.IntN(300)-150)))
		}
	default: // integers
		for _, i := range ints {
			in = append(in, uint64(i))
		}
		for range 20000 {
			in = append(in, r.Uint64(), uint64(r.Int64N(1<<30)-1<<29))
		}
	}
	for i := range in {
		in[i] &= mask(sbits)
	}
	return in
}

// TestConverterMatchesConvertElement converts every byte-aligned pair of real types
// (and the same type to itself, and types stored wider) and compares each element with
// ConvertElement.
func TestConverterMatchesConvertElement(t *testing.T) {
	type typed struct {
		dt   layout.DType
		bits int
	}
	var types []typed
	for d := layout.Pred; d <= layout.F8E8M0FNU; d++ {
		if isReal(d) && d.Bits() >= 8 || d == layout.Pred {
			types = append(types, typed{d, d.StorageBits()})
		}
	}
	types = append(types, typed{layout.S4, 8}, typed{layout.U2, 8}, typed{layout.S8, 16},
		typed{layout.F16, 32}, typed{layout.U16, 64}, typed{layout.Pred, 16})
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range types {
		in := converterInputs(s.dt, s.bits, r)
		if testing.Short() && len(in) > 5000 {
			in = in[:5000]
		}
		src := make([]byte, len(in)*s.bits/8)
		for i, b := range in {
			StoreBits(src, int64(i), s.bits, b)
		}
		for _, d := range types {
			if !CanConvert(d.dt, s.dt) {
				continue
			}
			c, err := NewConverter(d.dt, d.bits, s.dt, s.bits)
			if err != nil {
				t.Fatalf("%s/%d → %s/%d: %v", s.dt, s.bits, d.dt, d.bits, err)
			}
			want := make([]byte, len(in)*d.bits/8)
			for i, b := range in {
				StoreBits(want, int64(i), d.bits, Widen(d.dt, d.bits, ConvertElement(d.dt, s.dt, b)))
			}
			got := bytes.Repeat([]byte{0xA5}, len(want))
			c.Convert(got, src, len(in))
			if bytes.Equal(got, want) {
				continue
			}
			for i, b := range in {
				g, w := LoadBits(got, int64(i), d.bits), LoadBits(want, int64(i), d.bits)
				if g != w {
					t.Errorf("%s/%d → %s/%d: element %d, source bits %#x: got %#x, ConvertElement %#x",
						s.dt, s.bits, d.dt, d.bits, i, b, g, w)
					break
				}
			}
		}
	}
}

// TestConverterRuns checks run lengths around the chunk size and that nothing beyond
// n elements is written.
func TestConverterRuns(t *testing.T) {
	c, err := NewConverter(layout.BF16, 16, layout.S32, 32)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 7, chunk - 1, chunk, chunk + 1, 3*chunk + 5} {
		src := make([]byte, 4*n+4)
		for i := range n + 1 {
			le.PutUint32(src[4*i:], uint32(int32(i*7919-5000)))
		}
		dst := bytes.Repeat([]byte{0xEE}, 2*n+2)
		c.Convert(dst, src, n)
		for i := range n {
			want := ConvertElement(layout.BF16, layout.S32, uint64(le.Uint32(src[4*i:])))
			if got := uint64(le.Uint16(dst[2*i:])); got != want {
				t.Fatalf("n=%d: element %d: got %#x, want %#x", n, i, got, want)
			}
		}
		if dst[2*n] != 0xEE || dst[2*n+1] != 0xEE {
			t.Errorf("n=%d: wrote past the run", n)
		}
	}
}

func TestNewConverterErrors(t *testing.T) {
	for _, c := range []struct {
		dt, st       layout.DType
		dbits, sbits int
	}{
		{layout.C64, layout.F32, 64, 32},     // no conversion
		{layout.F32, layout.S4, 32, 4},       // sub-byte storage
		{layout.F32, layout.F32, 16, 32},     // narrower than the type
		{layout.F32, layout.S8, 32, 24},      // not a power-of-two byte width
		{layout.C128, layout.C128, 128, 128}, // wider than 64 bits
	} {
		if _, err := NewConverter(c.dt, c.dbits, c.st, c.sbits); err == nil {
			t.Errorf("NewConverter(%s, %d, %s, %d) accepted", c.dt, c.dbits, c.st, c.sbits)
		}
	}
}

func TestConverterDoesNotAllocate(t *testing.T) {
	c, err := NewConverter(layout.S32, 32, layout.F64, 64)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := make([]byte, 8*1000), make([]byte, 4*1000)
	if n := testing.AllocsPerRun(10, func() { c.Convert(dst, src, 1000) }); n != 0 {
		t.Errorf("Convert allocates %v times per run", n)
	}
}

func BenchmarkConverter(b *testing.B) {
	for _, p := range []struct{ dst, src layout.DType }{
		{layout.F32, layout.S8}, {layout.BF16, layout.F16}, {layout.F16, layout.BF16},
		{layout.BF16, layout.F64}, {layout.F32, layout.F64}, {layout.S32, layout.S64},
		{layout.F32, layout.S32}, {layout.S32, layout.F32},
	} {
		b.Run(p.src.String()+"-to-"+p.dst.String(), func(b *testing.B) {
			const n = 1 << 16
			c, err := NewConverter(p.dst, p.dst.StorageBits(), p.src, p.src.StorageBits())
			if err != nil {
				b.Fatal(err)
			}
			// Normally distributed values, as in weights and activations.
			src := make([]byte, n*p.src.StorageBits()/8)
			f64, err := NewConverter(p.src, p.src.StorageBits(), layout.F64, 64)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			vals := make([]byte, 8*n)
			for i := range n {
				le.PutUint64(vals[8*i:], math.Float64bits(r.NormFloat64()*100))
			}
			f64.Convert(src, vals, n)
			dst := make([]byte, n*p.dst.StorageBits()/8)
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				c.Convert(dst, src, n)
			}
		})
	}
}

// FuzzConverter converts arbitrary bytes between two byte-aligned types (chosen by the
// first two input bytes, storage widths included) and compares every element with
// ConvertElement.
func FuzzConverter(f *testing.F) {
	f.Add(byte(layout.BF16), byte(layout.F16), []byte{0, 0, 0x80, 0x3f, 0xff, 0x7f, 1, 0, 0, 0x80, 0, 0x38, 0x42, 0x47})
	f.Add(byte(layout.S32), byte(layout.F64), bytes.Repeat([]byte{0xff, 0x7f, 0, 0, 0, 0, 0xe0, 0x41}, 3))
	f.Add(byte(layout.F32+0x80), byte(layout.S8), []byte{0x80, 0x7f, 0, 1, 0xff})
	f.Fuzz(func(t *testing.T, d, s byte, data []byte) {
		// The high bit of a type byte stores the type in twice its width (E(n) wider).
		dt, st := layout.DType(d&0x7f), layout.DType(s&0x7f)
		dbits, sbits := dt.StorageBits()<<(d>>7), st.StorageBits()<<(s>>7)
		if !dt.IsArray() || !st.IsArray() {
			return
		}
		c, err := NewConverter(dt, dbits, st, sbits)
		if err != nil {
			return
		}
		n := len(data) * 8 / sbits
		got := make([]byte, n*dbits/8)
		c.Convert(got, data, n)
		for i := range n {
			want := Widen(dt, dbits, ConvertElement(dt, st, LoadBits(data, int64(i), sbits)))
			if g := LoadBits(got, int64(i), dbits); g != want {
				t.Fatalf("%s/%d → %s/%d: element %d (%#x): got %#x, ConvertElement %#x", st, sbits, dt, dbits, i, LoadBits(data, int64(i), sbits), g, want)
			}
		}
	})
}

// A pred byte other than 0 and 1 is true, as in NumPy's bool view, on every path.
func TestConverterPredNonzeroIsTrue(t *testing.T) {
	for _, sbits := range []int{8, 16} {
		c, err := NewConverter(layout.U8, 8, layout.Pred, sbits)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]byte, 4*sbits/8)
		for i, b := range []byte{0, 1, 2, 0xFF} {
			src[i*sbits/8] = b
		}
		dst := make([]byte, 4)
		c.Convert(dst, src, 4)
		if want := []byte{0, 1, 1, 1}; !bytes.Equal(dst, want) {
			t.Errorf("pred E(%d) → u8 = %v, want %v", sbits, dst, want)
		}
	}
}
