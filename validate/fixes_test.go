package validate

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// f32Row returns an f32[1,n] reference holding vals.
func f32Row(vals ...float64) *buffer.Buffer {
	ref := buffer.MustNew(layout.NewShape(layout.F32, 1, int64(len(vals))))
	for i, v := range vals {
		ref.Set([]int64{0, int64(i)}, v)
	}
	return ref
}

// Issue #14 item 3: an s8 image made by convert matches the f32 it was made from, and
// integer errors are differences, not ulps.
func TestCompareInDumpType(t *testing.T) {
	ref := f32Row(0.6, 1.4, -2.5, 3)
	dump := converted(t, ref, "s8[1,4]")
	r := mustCompare(t, dump, ref, Options{})
	if !r.OK || r.CompareDType != "s8" || r.Identical != 4 {
		t.Fatalf("s8 image of the reference: %+v\n%s", r, r)
	}
	dump.SetBits([]int64{0, 1}, 5) // expected 1
	r = mustCompare(t, dump, ref, Options{})
	s := r.String()
	if r.Mismatches != 1 || r.MaxULP != 4 || float64(r.MaxAbs) != 4 || !strings.Contains(s, "largest difference 4\n") || strings.Contains(s, "ulp") {
		t.Errorf("one s8 element 4 off: %+v\n%s", r, s)
	}
	if e := r.First[0]; e.ExpectedBits != "0x01" || e.ActualBits != "0x05" || float64(e.Expected) != 1 {
		t.Errorf("listed %+v", e)
	}
	// A bf16 reference against an f32 dump is compared in f32: the dump's extra bits count.
	bref := converted(t, f32Row(1.1, 2), "bf16[1,2]")
	fdump := f32Row(1.1, 2)
	if r := mustCompare(t, fdump, bref, Options{}); r.CompareDType != "f32" || r.Mismatches != 1 {
		t.Errorf("f32 dump against bf16 reference: %+v", r)
	}
}

// Issue #14 item 3: a NaN against a number is not "largest error 0".
func TestCompareNaNAgainstNumber(t *testing.T) {
	ref := f32Row(math.NaN(), 1, 2, 3)
	dump := converted(t, f32Row(1, 1, 2, 3), "bf16[1,4]")
	r := mustCompare(t, dump, ref, Options{})
	s := r.String()
	if r.Mismatches != 1 || r.NaNMismatches != 1 || !math.IsNaN(float64(r.MaxAbs)) ||
		strings.Contains(s, "largest error 0") || !strings.Contains(s, "1 NaN against a number") {
		t.Errorf("NaN against 1: %+v\n%s", r, s)
	}
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"max_abs_error":"NaN"`) || !strings.Contains(string(b), `"nan_mismatches":1`) {
		t.Errorf("JSON: %s, %v", b, err)
	}
	// With a numeric error too, it is reported beside the NaN.
	dump.SetBits([]int64{0, 3}, dump.Bits([]int64{0, 3})+2)
	if s := mustCompare(t, dump, ref, Options{}).String(); !strings.Contains(s, "largest error 0.03125 (2 ulp); 1 NaN against a number") {
		t.Errorf("NaN and 2 ulp:\n%s", s)
	}
}

// Issue #14 item 11: no percentage rounds to 0% or 100% unless it is exact.
func TestPercent(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0%"}, {1, "100%"}, {0.5, "50%"}, {3.0 / 6000, "0.05%"}, {0.9854, "98.54%"},
		{1.0 / 262144, "0.0004%"}, {262143.0 / 262144, "99.9996%"}, {0.99999, "99.999%"}, {1e-9, "0.0000001%"},
	} {
		if got := Percent(c.f); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	// One wrong element of 262144.
	ref := refF32(t, 512, 512)
	dump := converted(t, ref, "bf16[512,512]{1,0:T(8,128)(2,1)}")
	dump.Data[0] ^= 0x55
	if s := mustCompare(t, dump, ref, Options{}).String(); !strings.Contains(s, "1 of 262144 differ (0.0004%)") || strings.Contains(s, "(100% of") {
		t.Errorf("one of 262144:\n%s", s)
	}
}

// Issue #14 item 12: one wrong value of an untiled array names no other arrangement,
// though several describe the same bytes.
func TestDiagnosisNamesNothingOnATie(t *testing.T) {
	ref := refF32(t, 1, 300)
	dump := converted(t, ref, "f32[1,300]")
	dump.Data[40] ^= 0x55
	r := mustCompare(t, dump, ref, Options{})
	if r.Diagnosis == nil || r.Diagnosis.Best.Arrangement != tpu.ArrDeclared || strings.Contains(r.Summary(), "looks like") {
		t.Errorf("one wrong value: %s; %v", r.Summary(), r.Diagnosis)
	}
	// A dump in a tiled layout declared untiled: named.
	ref = refF32(t, 16, 256)
	tiled := converted(t, ref, "f32[16,256]{1,0:T(8,128)}")
	dump = buffer.MustNew(layout.MustParse("f32[16,256]"))
	copy(dump.Data, tiled.Data)
	if r := mustCompare(t, dump, ref, Options{}); r.Diagnosis == nil || r.Diagnosis.Best.Arrangement != tpu.ArrDefaultTiling {
		t.Errorf("tiled dump declared untiled: %v", r.Diagnosis)
	}
}

// mistaken builds a dump of shape whose element at each index holds f(ref's f32 bits).
func mistaken(t *testing.T, ref *buffer.Buffer, shape string, f func(uint32) uint64) *buffer.Buffer {
	t.Helper()
	out := buffer.MustNew(layout.MustParse(shape))
	idx := make([]int64, ref.Rank())
	for {
		out.SetBits(idx, f(uint32(ref.Bits(idx))))
		if !layout.NextIndex(idx, ref.Dims()) {
			return out
		}
	}
}

// Issue #19: dumps made by a conversion mistake are diagnosed as that mistake.
func TestDiagnosisConversionMistakes(t *testing.T) {
	ref := refF32(t, 20, 300)
	const bf16, f16 = "bf16[20,300]{1,0:T(8,128)(2,1)}", "f16[20,300]{1,0:T(8,128)(2,1)}"
	swap := func(v uint16) uint64 { return uint64(v>>8 | v<<8) }
	for _, c := range []struct {
		name, shape, want string
		f                 func(uint32) uint64
	}{
		{"truncated f32→bf16", bf16, tpu.ArrTruncated, func(b uint32) uint64 { return uint64(b >> 16) }},
		// Clearing the 13 low significand bits truncates to f16's 10 (the values are
		// f16 normals), and the conversion of the result is then exact.
		{"truncated f32→f16", f16, tpu.ArrTruncated, func(b uint32) uint64 { return uint64(buffer.F32ToF16(math.Float32frombits(b &^ 0x1fff))) }},
		{"f16 for bf16", bf16, tpu.ArrF16Bits, func(b uint32) uint64 { return uint64(buffer.F32ToF16(math.Float32frombits(b))) }},
		{"bf16 for f16", f16, tpu.ArrBF16Bits, func(b uint32) uint64 { return uint64(buffer.F32ToBF16(math.Float32frombits(b))) }},
		{"f32 high halves for f16", f16, tpu.ArrHighHalves, func(b uint32) uint64 { return uint64(b >> 16) }},
		{"byte-swapped bf16", bf16, tpu.ArrByteSwapped, func(b uint32) uint64 { return swap(buffer.F32ToBF16(math.Float32frombits(b))) }},
		{"byte-swapped f16", f16, tpu.ArrByteSwapped, func(b uint32) uint64 { return swap(buffer.F32ToF16(math.Float32frombits(b))) }},
	} {
		dump := mistaken(t, ref, c.shape, c.f)
		r := mustCompare(t, dump, ref, Options{})
		if r.OK || r.Diagnosis == nil || r.Diagnosis.Best.Arrangement != c.want || !strings.Contains(r.Summary(), "looks like "+c.want) {
			t.Errorf("%s: %s; %v", c.name, r.Summary(), r.Diagnosis)
			continue
		}
		if b := r.Diagnosis.Best; b.Matched != r.Diagnosis.Examined {
			t.Errorf("%s: %s explains %d of %d", c.name, b.Arrangement, b.Matched, r.Diagnosis.Examined)
		}
		if trunc := strings.Contains(r.Rounding, "truncation"); trunc != (c.want == tpu.ArrTruncated) {
			t.Errorf("%s: rounding %q", c.name, r.Rounding)
		}
	}
	// The ulp profile of truncation is in the text report too.
	r := mustCompare(t, mistaken(t, ref, bf16, func(b uint32) uint64 { return uint64(b >> 16) }), ref, Options{})
	if s := r.String(); !strings.Contains(s, "rounding: all ") || !strings.Contains(s, "1 ulp toward zero: truncation") {
		t.Errorf("truncation report:\n%s", s)
	}
	// A correct dump gets no such diagnosis, nor does one with a single wrong element.
	good := converted(t, ref, bf16)
	if r := mustCompare(t, good, ref, Options{}); r.Rounding != "" || r.Diagnosis != nil || r.NaNBitsDiffer != 0 {
		t.Errorf("correct dump: %+v", r)
	}
	// (0,1) holds sin(1)·100 > 0: one less in its bits is 1 ulp toward zero.
	if good.At([]int64{0, 1}) <= 0 {
		t.Fatal("(0,1) is not positive")
	}
	good.SetBits([]int64{0, 1}, good.Bits([]int64{0, 1})-1)
	r = mustCompare(t, good, ref, Options{})
	if r.Diagnosis == nil || r.Diagnosis.Best.Arrangement != tpu.ArrDeclared || strings.Contains(r.Rounding, "truncation") {
		t.Errorf("one element 1 ulp toward zero: %s; %+v", r.Rounding, r.Diagnosis)
	}
}

// Issue #19: NaNs written with another canonical NaN are reported (and match).
func TestNaNCanonicalisation(t *testing.T) {
	ref := refF32(t, 20, 300)
	idx := make([]int64, 2)
	for k := 0; ; k++ {
		if k%7 == 0 {
			ref.SetBits(idx, 0x7fc00000)
		}
		if !layout.NextIndex(idx, ref.Dims()) {
			break
		}
	}
	dump := mistaken(t, ref, bf16Layout, func(b uint32) uint64 {
		if b == 0x7fc00000 {
			return 0xffff // another tool's NaN
		}
		return uint64(buffer.F32ToBF16(math.Float32frombits(b)))
	})
	r := mustCompare(t, dump, ref, Options{})
	if !r.OK || r.NaNBitsDiffer != 858 || !strings.Contains(r.String(), "858 NaNs have other bits") {
		t.Errorf("NaNs with other bits: %+v\n%s", r, r)
	}
	d, err := tpu.Diagnose(dump, ref, tpu.CheckOptions{})
	// NaNs match NaNs in the diagnosis too: the declared layout explains every element.
	if err != nil || d.Best.Arrangement != tpu.ArrDeclared || d.Best.Matched != d.Examined {
		t.Errorf("Diagnose: %v, %v", d, err)
	}
}

// A tie is reported as such: no arrangement named, in the text or the summary.
func TestReportTied(t *testing.T) {
	a := tpu.Candidate{Arrangement: tpu.ArrFirstTile, Description: "first tile (4,128)", Matched: 50, Fraction: 0.5}
	b := tpu.Candidate{Arrangement: tpu.ArrFirstTile, Description: "first tile (16,128)", Matched: 50, Fraction: 0.5}
	decl := tpu.Candidate{Arrangement: tpu.ArrDeclared, Description: "the declared layout", Matched: 10, Fraction: 0.1}
	r := &Report{Elements: 100, Mismatches: 90, Fraction: 0.9, First: []Mismatch{},
		Diagnosis: &tpu.Diagnosis{Best: decl, Tied: []tpu.Candidate{a, b}, Examined: 100, Candidates: []tpu.Candidate{a, b, decl}}}
	s := r.String()
	if !strings.Contains(s, "diagnosis: none named: 2 arrangements explain equally many elements\n  first-tile: first tile (4,128) (50% of 100 elements match)\n  first-tile: first tile (16,128)") ||
		strings.Contains(r.Summary(), "looks like") {
		t.Errorf("%s\nsummary %q", s, r.Summary())
	}
}

// QA: -0 against +0 is a mismatch of 0 in value, said as such, never "largest error 0
// (0 ulp)" beside a rounding line of 1-ulp errors; and a NaN with other bits is scored
// by the diagnosis as the comparison counts it (a match), so nan-bits is not named.
func TestSignedZeroAndNaNBitsDiagnosis(t *testing.T) {
	ref := f32Row(math.NaN(), 1, math.Copysign(0, -1), math.Inf(1))
	dump := buffer.MustNew(layout.MustParse("bf16[1,4]"))
	for j, b := range []uint64{0x7fc1, 0x3f80, 0, 0x7f80} {
		dump.SetBits([]int64{0, int64(j)}, b)
	}
	r := mustCompare(t, dump, ref, Options{})
	s := r.String()
	if r.Mismatches != 1 || r.SignedZeros != 1 || r.Rounding != "" ||
		strings.Contains(s, "largest error 0") || !strings.Contains(s, "1 only in the sign of zero") {
		t.Errorf("-0 against +0: %+v\n%s", r, s)
	}
	d := r.Diagnosis
	if d == nil || d.Best.Arrangement != tpu.ArrDeclared || d.Best.Matched != 3 || strings.Contains(r.Summary(), "looks like") {
		t.Errorf("diagnosis: %v\n%s", d, s)
	}
	// Within a tolerance the zero of the other sign matches.
	if r := mustCompare(t, dump, ref, Options{Tolerance: Tolerance{ULP: 1}}); !r.OK {
		t.Errorf("ulp=1: %+v", r)
	}
}

// QA: a diagnosis in which no arrangement explains any element names none of them.
func TestDiagnosisExplainingNothing(t *testing.T) {
	ref := buffer.MustNew(layout.MustParse("u16[4]"))
	dump := buffer.MustNew(layout.MustParse("bf16[4]"))
	for j, b := range []uint64{0x7fc1, 0x3f80, 0, 0x7f80} {
		ref.SetBits([]int64{int64(j)}, uint64(j+1))
		dump.SetBits([]int64{int64(j)}, b)
	}
	r := mustCompare(t, dump, ref, Options{})
	s := r.String()
	if r.Diagnosis == nil || strings.Contains(s, "declared") || strings.Contains(s, "(0% of") ||
		!strings.Contains(s, "diagnosis: none: no arrangement tried explains any of the 4 elements") {
		t.Errorf("u16 against bf16:\n%s", s)
	}
}
