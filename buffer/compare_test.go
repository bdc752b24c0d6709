package buffer

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// fill sets every element of b to f(k) where k counts elements in row-major order.
func fill(b *Buffer, f func(k int) float64) {
	idx := make([]int64, b.Rank())
	for k := 0; ; k++ {
		b.Set(idx, f(k))
		if !layout.NextIndex(idx, b.Dims()) {
			return
		}
	}
}

func TestCompareNarrower(t *testing.T) {
	ref := MustNew(layout.MustParse("f32[24,300]"))
	fill(ref, func(k int) float64 { return math.Sin(float64(k)) * 100 })
	got := MustNew(layout.MustParse("bf16[24,300]{1,0:T(8,128)(2,1)}"))
	idx := make([]int64, 2)
	for {
		got.SetBF16(idx, ref.F32(idx))
		if !layout.NextIndex(idx, got.Dims()) {
			break
		}
	}
	r, err := Compare(ref, got, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.In != layout.BF16 || r.Identical != 24*300 || r.MaxAbsIndex != nil {
		t.Fatalf("f32 reference vs its bf16 rounding: %+v", r)
	}
	// By value (In: f64) the rounding shows.
	r, _ = Compare(ref, got, CompareOptions{In: layout.F64})
	if r.OK() || r.MaxRel > 1.0/256 || r.MaxRel == 0 {
		t.Fatalf("by value: %d mismatches, max rel %v", r.Mismatches, r.MaxRel)
	}
	r, _ = Compare(ref, got, CompareOptions{In: layout.F64, Rel: 1.0 / 256})
	if !r.OK() || r.Within == 0 {
		t.Fatalf("by value within 2^-8: %+v", r.First)
	}

	// Break two elements: one by one ulp, one by a lot.
	got.SetBits([]int64{3, 7}, got.Bits([]int64{3, 7})+1)
	got.SetBF16([]int64{20, 299}, 1e6)
	r, _ = Compare(ref, got, CompareOptions{MaxMismatches: 1})
	if r.Mismatches != 2 || len(r.First) != 1 || !slices.Equal(r.First[0].Index, []int64{3, 7}) || r.First[0].ULP != 1 {
		t.Fatalf("two broken elements: %+v", r)
	}
	m := r.First[0]
	if m.ExpectedBits != uint64(math.Float32bits(ref.F32([]int64{3, 7}))) || m.ActualBits != got.Bits([]int64{3, 7}) {
		t.Fatalf("mismatch bits: %+v", m)
	}
	if !slices.Equal(r.MaxAbsIndex, []int64{20, 299}) || !slices.Equal(r.MaxULPIndex, []int64{20, 299}) {
		t.Fatalf("worst index abs %v ulp %v", r.MaxAbsIndex, r.MaxULPIndex)
	}
	r, _ = Compare(ref, got, CompareOptions{ULP: 1})
	if r.Mismatches != 1 || r.Within != 1 {
		t.Fatalf("ULP 1: %d mismatches, %d within", r.Mismatches, r.Within)
	}
}

func TestCompareSpecials(t *testing.T) {
	a := MustNew(layout.MustParse("f32[6]"))
	b := MustNew(layout.MustParse("f32[6]{0:T(4)}"))
	vals := []float64{math.NaN(), 0, math.Inf(1), 1, -2, 5}
	for i, v := range vals {
		a.Set([]int64{int64(i)}, v)
		b.Set([]int64{int64(i)}, v)
	}
	b.SetBits([]int64{0}, 0x7FC00001)                   // another NaN
	b.SetF32([]int64{1}, float32(math.Copysign(0, -1))) // -0
	b.SetF32([]int64{3}, float32(math.NaN()))           // NaN vs number
	b.SetF32([]int64{4}, float32(math.Inf(-1)))         // Inf vs number
	r, _ := Compare(a, b, CompareOptions{})
	if r.Identical != 3 || r.Mismatches != 3 { // NaN/NaN, Inf, 5
		t.Fatalf("exact: %+v", r)
	}
	r, _ = Compare(a, b, CompareOptions{Abs: 1e30})
	if r.Identical != 3 || r.Within != 1 || r.Mismatches != 2 { // -0 within; NaN and Inf never
		t.Fatalf("abs: %+v", r)
	}
	r, _ = Compare(a, b, CompareOptions{NaNBits: true})
	if r.Identical != 2 {
		t.Fatalf("NaNBits: %+v", r)
	}
}

func TestCompareIntegersAndErrors(t *testing.T) {
	a := MustNew(layout.MustParse("s32[4,4]"))
	b := MustNew(layout.MustParse("s8[4,4]{0,1}"))
	fill(a, func(k int) float64 { return float64(k - 8) })
	fill(b, func(k int) float64 { return float64(k - 8) })
	b.Set([]int64{2, 2}, 100)
	r, err := Compare(a, b, CompareOptions{})
	if err != nil || r.In != layout.F64 || r.Mismatches != 1 || !slices.Equal(r.First[0].Index, []int64{2, 2}) {
		t.Fatalf("s32 vs s8: %v %+v", err, r)
	}
	c := MustNew(layout.MustParse("s32[4,4]"))
	fill(c, func(k int) float64 { return float64(k - 8) })
	c.Set([]int64{0, 0}, 100)
	r, _ = Compare(a, c, CompareOptions{ULP: 108})
	if r.MaxULP != 108 || !r.OK() {
		t.Fatalf("int distance: %+v", r)
	}
	if _, err := Compare(a, MustNew(layout.MustParse("s32[4,5]")), CompareOptions{}); !errors.Is(err, ErrShape) {
		t.Fatalf("dims: %v", err)
	}
	if _, err := Compare(MustNew(layout.MustParse("c64[2]")), MustNew(layout.MustParse("c64[2]")), CompareOptions{}); !errors.Is(err, ErrDType) {
		t.Fatalf("complex: %v", err)
	}
	if CompareType(layout.F16, layout.BF16) != layout.BF16 || CompareType(layout.F32, layout.F8E5M2) != layout.F8E5M2 ||
		CompareType(layout.F8E4M3FN, layout.F8E5M2) != layout.F8E5M2 {
		t.Fatal("CompareType")
	}
}

func BenchmarkCompare(b *testing.B) {
	ref := MustNew(layout.MustParse("f32[256,1024]"))
	got := MustNew(layout.MustParse("bf16[256,1024]{1,0:T(8,128)(2,1)}"))
	fill(ref, func(k int) float64 { return float64(k%1000) / 7 })
	fill(got, func(k int) float64 { return float64(k%1000) / 7 })
	for _, c := range []struct {
		name string
		a, b *Buffer
		opts CompareOptions
	}{
		{"f32-vs-bf16-tiled", ref, got, CompareOptions{}},
		{"f32-vs-f32", ref, ref, CompareOptions{}},
		// Most elements differ in f32: the path that measures and classifies errors.
		{"f32-vs-bf16-in-f32", ref, got, CompareOptions{In: layout.F32, Rel: 1e-2}},
	} {
		b.Run("case="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compare(c.a, c.b, c.opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.a.Len())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
		})
	}
}

// TestRowTable checks that rowTable gives a table exactly where it can (a separable layout,
// a last dim that is not empty nor too long) and that base + table equals Offset there.
func TestRowTable(t *testing.T) {
	for s, want := range map[string]bool{
		"f32[5,7,300]{2,1,0:T(8,128)}":     true,
		"bf16[3,40]{0,1:T(8,128)(2,1)}":    true,
		"f32[6,9]{1,0:T(2,4)(2,1)}":        true,
		"f32[4,6,10]{2,1,0:T(*,2,4)}":      false, // merges dims 0 and 1
		"bf16[2,1,1004]{2,1,0:T(2,*,128)}": true,  // merges a dim of size 1
		"s4[7,33]{1,0:T(8,16)E(4)}":        true,
		"f32[2,3,5]{0,2,1:T(2,2)L(7)}":     true,
		"bf16[2,3,1004]{2,1,0:T(2,*,128)}": false, // merges dims 0 and 1
		"f32[]":                            false,
		"f32[3,0]":                         false,
		"u8[2,70000]":                      false, // longer than rowTableMax
	} {
		b := MustNew(layout.MustParse(s))
		tab := b.rowTable()
		if (tab != nil) != want {
			t.Errorf("%s: row table %v, want %v", s, tab != nil, want)
			continue
		}
		if tab == nil {
			continue
		}
		idx := make([]int64, b.Rank())
		for {
			j := idx[len(idx)-1]
			idx[len(idx)-1] = 0
			base := b.ix.Offset(idx)
			idx[len(idx)-1] = j
			if got, want := base+tab[j], b.ix.Offset(idx); got != want {
				t.Fatalf("%s %v: row table gives %d, Offset %d", s, idx, got, want)
			}
			if !layout.NextIndex(idx, b.Dims()) {
				break
			}
		}
	}
}

// TestCompareNaNAndDirection checks the NaN counts, which the worst errors leave out, and
// the direction counts that reveal truncation.
func TestCompareNaNAndDirection(t *testing.T) {
	exp := MustNew(layout.MustParse("bf16[5]"))
	got := MustNew(layout.MustParse("bf16[5]"))
	for i, v := range []uint64{0x7fc0, 0x3f80, 0x7fc0, 0x3f81, 0xbf81} {
		exp.SetBits([]int64{int64(i)}, v)
	}
	for i, v := range []uint64{0x3f80, 0x7fc0, 0x7fc1, 0x3f80, 0xbf82} {
		got.SetBits([]int64{int64(i)}, v)
	}
	r, err := Compare(exp, got, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mismatches != 4 || r.NaNMismatches != 2 || r.NaNBitsDiffer != 1 || r.Identical != 1 ||
		r.TowardZero != 1 || r.AwayFromZero != 1 || r.MaxULP != 1 {
		t.Errorf("%+v", r)
	}
	if r, _ := Compare(exp, got, CompareOptions{NaNBits: true}); r.Mismatches != 5 || r.NaNBitsDiffer != 1 {
		t.Errorf("NaNBits: %+v", r)
	}
}

// -0 against +0 is not identical, 0 apart, and counted as a signed zero.
func TestCompareSignedZero(t *testing.T) {
	exp := MustNew(layout.NewShape(layout.F32, 3))
	act := MustNew(layout.NewShape(layout.F32, 3))
	exp.SetBits([]int64{0}, 0x80000000)
	exp.SetBits([]int64{1}, 0x3f800000)
	act.SetBits([]int64{1}, 0x3f800001)
	r, err := Compare(exp, act, CompareOptions{})
	if err != nil || r.Mismatches != 2 || r.SignedZeros != 1 || r.MaxULP != 1 || r.AwayFromZero != 1 {
		t.Errorf("Compare: %+v, %v", r, err)
	}
}
