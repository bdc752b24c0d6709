package buffer_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/xlagolden"
	"github.com/tpulayout/tpulayout/layout"
)

// hostKeepsSubnormal reports whether the recording and ConvertElement part by decision
// for input f converted to ty: XLA's CPU backend reads f32 subnormals as zero when it
// converts to f64 and pred (the recording holds 0.0 and false), and a host conversion
// keeps their value as NumPy and ml_dtypes do (docs/conversions.md says why).
func hostKeepsSubnormal(ty string, f uint32) bool {
	return (ty == "f64" || ty == "pred") && xlagolden.IsSubnormal(f)
}

// Every recorded f32 input converted to each type by ConvertElement has XLA's bits, but
// for the f64 and pred results of subnormal inputs, which keep the value.
func TestConvertElementFromF32MatchesXLA(t *testing.T) {
	g := xlagolden.Load(t)
	for _, ty := range xlagolden.Types {
		dt, ok := layout.DTypeByName(ty)
		if !ok {
			t.Fatalf("no type %s", ty)
		}
		bad, kept := 0, 0
		for i, f := range g.Input {
			got, want := buffer.ConvertElement(dt, layout.F32, uint64(f)), g.From[ty].At(i)
			if hostKeepsSubnormal(ty, f) {
				kept++
				checkKeptSubnormal(t, ty, f, got, want)
				continue
			}
			if got != want {
				if bad++; bad <= 5 {
					t.Errorf("f32 0x%08x → %s: 0x%x, XLA 0x%x", f, ty, got, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("f32 → %s: %d of %d inputs differ from XLA", ty, bad, len(g.Input))
		}
		if kept > 0 {
			t.Logf("f32 → %s: %d subnormal inputs keep their value (XLA's CPU backend reads them as 0)", ty, kept)
		}
	}
}

// checkKeptSubnormal checks one input of the decision: the recording has the flushed
// result (±0.0 or false) and ConvertElement the exact one (the value, or true).
func checkKeptSubnormal(t *testing.T, ty string, f uint32, got, want uint64) {
	t.Helper()
	sign := uint64(f>>31) << 63
	switch ty {
	case "f64":
		if want != sign {
			t.Errorf("recording: f32 subnormal 0x%08x → f64 0x%016x, want the flushed ±0 (the decision's premise)", f, want)
		}
		if v := math.Float64bits(float64(math.Float32frombits(f))); got != v {
			t.Errorf("f32 subnormal 0x%08x → f64 0x%016x, want its exact value 0x%016x", f, got, v)
		}
	case "pred":
		if want != 0 || got != 1 {
			t.Errorf("f32 subnormal 0x%08x → pred %d (XLA %d), want true here and false recorded", f, got, want)
		}
	}
}

// Every bit pattern of each narrow type widened to f32 by ConvertElement has XLA's bits.
func TestConvertElementToF32MatchesXLA(t *testing.T) {
	g := xlagolden.Load(t)
	for _, ty := range xlagolden.Widened {
		dt, _ := layout.DTypeByName(ty)
		w := g.To[ty]
		bad := 0
		for i, p := range w.Pattern {
			if got := buffer.ConvertElement(layout.F32, dt, p); got != uint64(w.F32[i]) {
				if bad++; bad <= 5 {
					t.Errorf("%s 0x%x → f32 0x%08x, XLA 0x%08x", ty, p, got, w.F32[i])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s → f32: %d of %d patterns differ from XLA", ty, bad, len(w.Pattern))
		}
	}
}

// The exported scalar conversions (F32ToBF16, F32ToF16, the f8 ones) are ConvertElement's
// rules, so they have XLA's bits too.
func TestScalarConversionsMatchXLA(t *testing.T) {
	g := xlagolden.Load(t)
	for _, c := range []struct {
		ty string
		fn func(uint32) uint64
	}{
		{"bf16", func(f uint32) uint64 { return uint64(buffer.F32ToBF16(math.Float32frombits(f))) }},
		{"f16", func(f uint32) uint64 { return uint64(buffer.F32ToF16(math.Float32frombits(f))) }},
		{"f8e4m3fn", func(f uint32) uint64 { return uint64(buffer.F32ToF8E4M3FN(math.Float32frombits(f))) }},
		{"f8e5m2", func(f uint32) uint64 { return uint64(buffer.F32ToF8E5M2(math.Float32frombits(f))) }},
	} {
		for i, f := range g.Input {
			if got, want := c.fn(f), g.From[c.ty].At(i); got != want {
				t.Errorf("%s: f32 0x%08x → 0x%x, XLA 0x%x", c.ty, f, got, want)
				break
			}
		}
	}
	for _, ty := range []string{"bf16", "f16"} {
		w := g.To[ty]
		for i, p := range w.Pattern {
			got := buffer.BF16ToF32(uint16(p))
			if ty == "f16" {
				got = buffer.F16ToF32(uint16(p))
			}
			if b := math.Float32bits(got); b != w.F32[i] {
				t.Errorf("%s 0x%04x → f32 0x%08x, XLA 0x%08x", ty, p, b, w.F32[i])
				break
			}
		}
	}
}

// storedBits is the storage width of ty in a dense layout: a whole byte for the
// sub-byte types.
func storedBits(dt layout.DType) int { return max(8, dt.Bits()) }

// The Converter's runs (each pair's fast loops) have XLA's bits in both directions, the
// decided subnormals aside: every recorded input converted in one run, every recorded
// pattern widened in one run.
func TestConverterMatchesXLA(t *testing.T) {
	g := xlagolden.Load(t)
	src := make([]byte, 4*len(g.Input))
	for i, f := range g.Input {
		binary.LittleEndian.PutUint32(src[4*i:], f)
	}
	for _, ty := range xlagolden.Types {
		dt, _ := layout.DTypeByName(ty)
		w := storedBits(dt)
		c, err := buffer.NewConverter(dt, w, layout.F32, 32)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, w/8*len(g.Input))
		c.Convert(dst, src, len(g.Input))
		for i, f := range g.Input {
			got := buffer.LoadBits(dst, int64(i), w) & (1<<dt.Bits() - 1)
			want := g.From[ty].At(i)
			if hostKeepsSubnormal(ty, f) {
				want = buffer.ConvertElement(dt, layout.F32, uint64(f)) // TestConvertElementFromF32MatchesXLA checks it
			}
			if got != want {
				t.Errorf("Converter f32 0x%08x → %s: 0x%x, XLA 0x%x", f, ty, got, want)
				break
			}
		}
	}
	for _, ty := range xlagolden.Widened {
		dt, _ := layout.DTypeByName(ty)
		w, p := storedBits(dt), g.To[ty]
		c, err := buffer.NewConverter(layout.F32, 32, dt, w)
		if err != nil {
			t.Fatal(err)
		}
		in, out := make([]byte, w/8*len(p.Pattern)), make([]byte, 4*len(p.Pattern))
		for i, b := range p.Pattern {
			buffer.StoreBits(in, int64(i), w, buffer.Widen(dt, w, b))
		}
		c.Convert(out, in, len(p.Pattern))
		for i, b := range p.Pattern {
			if got := binary.LittleEndian.Uint32(out[4*i:]); got != p.F32[i] {
				t.Errorf("Converter %s 0x%x → f32 0x%08x, XLA 0x%08x", ty, b, got, p.F32[i])
				break
			}
		}
	}
}
