package validate

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

const bf16Layout = "bf16[20,300]{1,0:T(8,128)(2,1)}"

func TestCompareOK(t *testing.T) {
	ref := refF32(t, 20, 300)
	dump := converted(t, ref, bf16Layout)
	r := mustCompare(t, dump, ref, Options{CheckPadding: true})
	if !r.OK || r.Elements != 6000 || r.Identical != 6000 || r.CompareDType != "bf16" || r.Diagnosis != nil ||
		r.PaddingElements != 3216 || r.VregLayout == "" || r.Generation != "v5e" || r.Summary() != "" {
		t.Fatalf("%+v", r)
	}
	s := r.String()
	for _, want := range []string{"all 6000 match", "compared in bf16, exact", "16-bit (8,128) on v5e", "all 3216 padding elements are zero", "result:   OK"} {
		if !strings.Contains(s, want) {
			t.Errorf("report does not mention %q:\n%s", want, s)
		}
	}
	// A layout the TPU cannot load still validates.
	cm := converted(t, ref, "f32[20,300]{0,1:T(8,128)}")
	if r := mustCompare(t, cm, ref, Options{}); !r.OK || r.Loadable || !strings.Contains(r.String(), "vregs:    none:") {
		t.Errorf("column-major: %+v", r)
	}
}

// TestCompareCorrupted checks where the listed mismatches are placed.
func TestCompareCorrupted(t *testing.T) {
	ref := refF32(t, 20, 300)
	dump := converted(t, ref, bf16Layout)
	// Byte 0 is element (0,0) (slot 0 of word 0); byte 2 element (1,0) (slot 1 of word 0);
	// byte 2048+6 is element offset 3 of the second tile, (r/2)·256 + c·2 + r%2 = 3:
	// element (1,129), in the same vreg (a 16-bit (8,128) vreg holds two tiles side by
	// side) at sublane 4.
	for _, o := range []int{0, 2, 2048 + 6} {
		dump.Data[o] ^= 0x55
	}
	r := mustCompare(t, dump, ref, Options{})
	if r.OK || r.Mismatches != 3 || float64(r.Fraction) != 3.0/6000 || len(r.First) != 3 {
		t.Fatalf("%+v", r)
	}
	type want struct {
		index, tile, vreg   []int64
		byteOff             int64
		sublane, lane, slot int
	}
	for i, w := range []want{
		{[]int64{0, 0}, []int64{0, 0}, []int64{0, 0}, 0, 0, 0, 0},
		{[]int64{1, 0}, []int64{0, 0}, []int64{0, 0}, 2, 0, 0, 1},
		{[]int64{1, 129}, []int64{0, 1}, []int64{0, 0}, 2048 + 6, 4, 1, 1},
	} {
		e := r.First[i]
		if !slices.Equal(e.Index, w.index) || !slices.Equal(e.Tile, w.tile) || !slices.Equal(e.Vreg, w.vreg) ||
			e.ByteOffset != w.byteOff || *e.Sublane != w.sublane || *e.Lane != w.lane || *e.Slot != w.slot {
			t.Errorf("First[%d] = %+v, want %+v", i, e, w)
		}
	}
	// The expected bits are the reference rounded to bf16; the actual ones the dump's.
	e := r.First[0]
	if want := buffer.F32ToBF16(ref.F32([]int64{0, 0})); e.ExpectedBits != hex16(uint64(want)) {
		t.Errorf("ExpectedBits %v, want %s", e.ExpectedBits, hex16(uint64(want)))
	}
	if got := uint64(dump.Data[0]) | uint64(dump.Data[1])<<8; e.ActualBits != hex16(got) {
		t.Errorf("ActualBits %v, want %s", e.ActualBits, hex16(got))
	}
	if r.Diagnosis == nil || r.Diagnosis.Best.Arrangement != "declared" {
		t.Errorf("diagnosis of a few corrupted bytes: %+v", r.Diagnosis)
	}
	s := r.String()
	for _, w := range []string{"3 of 6000 differ (0.05%)", "first 3 mismatches", "index", "sublane", "(1,129)", "2054", "result:   MISMATCH", "diagnosis: declared"} {
		if !strings.Contains(s, w) {
			t.Errorf("report does not mention %q:\n%s", w, s)
		}
	}
	if got := r.Summary(); got != "3 of 6000 elements differ" {
		t.Errorf("Summary() = %q", got)
	}
	if r := mustCompare(t, dump, ref, Options{MaxListed: 1}); len(r.First) != 1 {
		t.Errorf("MaxListed 1: %d listed", len(r.First))
	}
	if r := mustCompare(t, dump, ref, Options{MaxListed: -1}); len(r.First) != 0 || r.Mismatches != 3 {
		t.Errorf("MaxListed -1: %d listed", len(r.First))
	}
}

func hex16(b uint64) string { return fmt.Sprintf("0x%04x", b) }

func TestCompareTolerance(t *testing.T) {
	ref := refF32(t, 20, 300)
	dump := converted(t, ref, bf16Layout)
	idx := []int64{0, 1}
	dump.SetBits(idx, dump.Bits(idx)+1) // one bf16 ulp off
	if r := mustCompare(t, dump, ref, Options{}); r.Mismatches != 1 || r.MaxULP != 1 {
		t.Fatalf("1 ulp off, exact: %+v", r)
	}
	r := mustCompare(t, dump, ref, Options{Tolerance: Tolerance{ULP: 1}})
	if !r.OK || r.Within != 1 || !strings.Contains(r.String(), "1 within tolerance") || !strings.Contains(r.String(), "tolerance ulp=1") {
		t.Errorf("ULP 1: %+v\n%s", r, r)
	}
	for _, tol := range []Tolerance{{Abs: 1}, {Rel: 0.05}} {
		if r := mustCompare(t, dump, ref, Options{Tolerance: tol}); !r.OK {
			t.Errorf("%v: %d mismatches", tol, r.Mismatches)
		}
	}
	if r := mustCompare(t, dump, ref, Options{Tolerance: Tolerance{Abs: 1e-9}}); r.OK {
		t.Errorf("abs=1e-9 passes")
	}
	if got := (Tolerance{ULP: 1, Abs: 1e-6}).String(); got != "ulp=1,abs=1e-06" {
		t.Errorf("Tolerance.String() = %q", got)
	}
}

func TestComparePadding(t *testing.T) {
	ref := refF32(t, 20, 300)
	dump := converted(t, ref, bf16Layout)
	dump.Data[len(dump.Data)-1] = 0x7f
	if r := mustCompare(t, dump, ref, Options{}); !r.OK {
		t.Errorf("padding is checked without CheckPadding")
	}
	r := mustCompare(t, dump, ref, Options{CheckPadding: true})
	if r.OK || r.PaddingMismatch != 1 || r.Mismatches != 0 || r.FirstPadding[0].ByteOffset != int64(len(dump.Data)-2) ||
		r.FirstPadding[0].Bits != "0x7f00" || !strings.Contains(r.String(), "1 of 3216 padding elements are not zero") ||
		!strings.Contains(r.Summary(), "padding") {
		t.Errorf("%+v\n%s", r, r)
	}
}

func TestCompareErrors(t *testing.T) {
	ref := refF32(t, 20, 300)
	dump := converted(t, ref, bf16Layout)
	short := *dump
	short.Data = short.Data[:1000]
	c64 := buffer.MustNew(layout.MustParse("c64[20,300]"))
	for _, c := range []struct {
		dump, ref *buffer.Buffer
		opts      Options
		wants     []string
	}{
		{&short, ref, Options{}, []string{"1000 bytes", "18432 bytes"}},
		{dump, refF32(t, 40, 130), Options{}, []string{"f32[40,130]", "dims [20,300]"}},
		{c64, ref, Options{}, []string{"c64", "f32"}},
		{dump, ref, Options{Gen: "v99"}, []string{"v99"}},
		{nil, ref, Options{}, []string{"nil"}},
	} {
		r, err := Compare(c.dump, c.ref, c.opts)
		if err == nil || !errors.Is(err, ErrInput) || r != nil {
			t.Errorf("%v: report %v, error %v", c.wants, r, err)
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	}
}

// TestReportJSON checks the keys the report marshals to: validate --json's less the
// file names, which appear only when set.
func TestReportJSON(t *testing.T) {
	ref := refF32(t, 20, 300)
	dump := converted(t, ref, bf16Layout)
	dump.Data[0] ^= 0x55
	r := mustCompare(t, dump, ref, Options{})
	var m map[string]any
	json.Unmarshal([]byte(testenv.JSON(t, r)), &m)
	for _, k := range strings.Fields("ok layout ref_shape compare_dtype elements identical within_tolerance mismatches mismatch_fraction max_abs_error max_ulp_error first padding_checked padding_elements padding_mismatches first_padding loadable vreg_layout diagnosis") {
		if _, ok := m[k]; !ok {
			t.Errorf("no key %q", k)
		}
	}
	for _, k := range []string{"dump", "ref"} {
		if _, ok := m[k]; ok {
			t.Errorf("key %q without a file name", k)
		}
	}
}

// TestCompareEveryDTypePair compares random dumps of every array type, in their v5e
// default layout where there is one, against references of every type: a report or an
// error, never a panic, and a report's diagnosis for every pair the dump's type allows.
func TestCompareEveryDTypePair(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dims := []int64{9, 130}
	if testing.Short() {
		dims = []int64{3, 5}
	}
	random := func(s layout.Shape) *buffer.Buffer {
		b := buffer.MustNew(s)
		for i := range b.Data {
			b.Data[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, dt := range layout.DTypes() {
		if !dt.IsArray() {
			continue
		}
		s := layout.NewShape(dt, dims...)
		if d, err := tpu.DefaultShape(tpu.V5e, dt, dims); err == nil {
			s = d
		}
		dump := random(s)
		for _, rt := range layout.DTypes() {
			if !rt.IsArray() {
				continue
			}
			ref := random(layout.NewShape(rt, dims...))
			r, err := Compare(dump, ref, Options{CheckPadding: true})
			if err != nil {
				if buffer.CanConvert(dt, rt) && dt.Bits() <= 64 && dt != layout.C64 {
					t.Errorf("%s dump, %s ref: %v", dt, rt, err)
				}
				continue
			}
			_ = r.String()
			if r.Mismatches > 0 && r.Diagnosis == nil && r.DiagnosisProblem == "" {
				t.Errorf("%s dump, %s ref: mismatches without a diagnosis", dt, rt)
			}
		}
	}
}

// BenchmarkCompareWrongArrangement validates a 2048×2048 bf16 dump written without the
// pair packing: every element differs, so the diagnosis runs over about a million.
func BenchmarkCompareWrongArrangement(b *testing.B) {
	ref := refF32(b, 2048, 2048)
	good := converted(b, ref, "bf16[2048,2048]{1,0:T(8,128)}")
	dump := converted(b, ref, "bf16[2048,2048]{1,0:T(8,128)(2,1)}")
	copy(dump.Data, good.Data)
	b.ResetTimer()
	for range b.N {
		if _, err := Compare(dump, ref, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseTolerance reads --tol's forms and refuses the wrong ones with what is wrong.
func TestParseTolerance(t *testing.T) {
	for _, c := range []struct {
		text string
		want Tolerance
		err  string
	}{
		{"ulp=1", Tolerance{ULP: 1}, ""},
		{"ulp=2, abs=1e-6,REL=0.5", Tolerance{ULP: 2, Abs: 1e-6, Rel: 0.5}, ""},
		{"ulp", Tolerance{}, `"ulp" is not K=V (ulp=N, abs=X or rel=X)`},
		{"ulp=-1", Tolerance{}, "ulp=-1: want a whole number of units"},
		{"abs=NaN", Tolerance{}, "abs=NaN: want a number ≥ 0"},
		{"rel=-1", Tolerance{}, "rel=-1: want a number ≥ 0"},
		{"big=1", Tolerance{}, `unknown tolerance "big" (want ulp, abs or rel)`},
		{"ulp=1,ulp=2", Tolerance{}, "ulp given twice; give each of ulp, abs and rel once"},
	} {
		got, err := ParseTolerance(c.text)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v, want %q", c.text, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %+v, %v; want %+v", c.text, got, err, c.want)
		}
	}
}

// TestTolFlagRepeated: as a flag, --tol repeats, and a key given in two of them is
// an error too.
func TestTolFlagRepeated(t *testing.T) {
	var tol TolFlag
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(nil)
	fs.Var(&tol, "tol", "")
	if err := fs.Parse([]string{"--tol", "ulp=1", "--tol", "abs=0.5"}); err != nil || tol.Tolerance != (Tolerance{ULP: 1, Abs: 0.5}) {
		t.Fatalf("%+v, %v", tol.Tolerance, err)
	}
	if tol.String() != "ulp=1,abs=0.5" {
		t.Errorf("String() = %q", tol.String())
	}
	if err := tol.Set("abs=1"); err == nil {
		t.Errorf("abs given twice across flags: no error")
	}
}
