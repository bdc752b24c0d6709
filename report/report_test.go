package report_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// Every offset of the footprint explains as the oracle decodes it: the element there,
// or padding.
func TestExplainOffsetMatchesOracle(t *testing.T) {
	for _, text := range []string{"f32[3,5]{1,0:T(2,4)}", "bf16[5,130]{1,0:T(8,128)(2,1)}", "s4[3,7]{0,1:T(2,8)L(64)}", "f32[]",
		"f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1:T(2,2)}", "bf16[4,8]{1,0:T(2,4)(2,1)}", "f32[3,5]{1,0:T(2,2)(3,1)}",
		"f32[3,5]{1,0:T(2,2)L(30)}", "f32[2,3,5]{1,2,0:T(2,2)}", "f32[2,3,4]{2,1,0:T(*,2,3)}", "s4[3,5]{1,0:T(2,4)E(4)}",
		"f32[]{:T(4)}", "f32[7]{0:T(4)}"} {
		ix := testfiles.Compile(t, text)
		idx := make([]int64, ix.Rank())
		for off := range ix.FootprintElements() {
			ex, err := report.ExplainOffset(ix, off)
			if err != nil {
				t.Fatalf("%s offset %d: %v", text, off, err)
			}
			if ix.Index(off, idx) {
				if ex.Padding || ex.Index == nil || fmt.Sprint(*ex.Index) != fmt.Sprint(idx) {
					t.Fatalf("%s offset %d: got index %v padding %v, oracle %v", text, off, ex.Index, ex.Padding, idx)
				}
				continue
			}
			if !ex.Padding || ex.Index != nil || ex.Reason == "" {
				t.Fatalf("%s offset %d: oracle says padding, got %+v", text, off, ex)
			}
		}
	}
}

func TestExplainErrors(t *testing.T) {
	ix := testfiles.Compile(t, "f32[3,5]{1,0:T(2,4)}")
	for _, c := range []struct {
		idx  []int64
		want string
	}{
		{[]int64{1}, "has 1 coordinates, but the shape has rank 2 (dims [3,5])"},
		{[]int64{1, 5}, "coordinate 5 is out of range for dimension 1 of size 5"},
		{[]int64{-1, 0}, "coordinate -1 is out of range for dimension 0 of size 3"},
	} {
		if _, err := report.ExplainIndex(ix, c.idx); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ExplainIndex(%v) = %v, want %q", c.idx, err, c.want)
		}
	}
	for _, off := range []int64{-1, 32} {
		if _, err := report.ExplainOffset(ix, off); err == nil || !strings.Contains(err.Error(), "offsets run from 0 to 31") {
			t.Errorf("ExplainOffset(%d) = %v", off, err)
		}
	}
}

func TestHLOTupleRowsAndSort(t *testing.T) {
	m, err := hlo.Parse([]byte(`HloModule m
ENTRY e {
  p0 = f32[3,5]{1,0} parameter(0)
  p1 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(1)
  ROOT t = (f32[3,5]{1,0}, bf16[8,128]{1,0:T(8,128)(2,1)}) tuple(p0, p1)
}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := report.NewHLO(m, report.HLOOptions{Retile: true, Gen: tpu.V5e, SortByPadding: true})
	var got []string
	for _, r := range rep.Rows {
		got = append(got, fmt.Sprintf("%s%s %s%s retiled=%v", r.Kind, r.Index, r.Shape, r.Layout, r.Retiled))
	}
	// f32[3,5] takes v5e's default for it, T(4,128): 2048 bytes for 60, the worst expansion first.
	want := []string{
		"parameter f32[3,5]{1,0:T(4,128)} retiled=true",
		"result{0} f32[3,5]{1,0:T(4,128)} retiled=true",
		"parameter bf16[8,128]{1,0:T(8,128)(2,1)} retiled=false",
		"result{1} bf16[8,128]{1,0:T(8,128)(2,1)} retiled=false",
	}
	testenv.Lines(t, "rows", got, want)
	if rep.Logical != 2*(60+2048) || rep.Footprint != 2*(2048+2048) {
		t.Errorf("totals %d logical, %d footprint", rep.Logical, rep.Footprint)
	}
}

func TestCheckBlock(t *testing.T) {
	sh, _ := layout.Parse("bf16[4096,4096]")
	b, err := report.CheckBlock(tpu.V5e, sh, []int64{256, 500}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if b.Legal || len(b.Problems) == 0 || len(b.Pipelined) != 2 || b.Pipelined[1].Operands != 2 {
		t.Errorf("got %+v", b)
	}
	tr, _ := layout.Parse("bf16[4096,4096]{0,1}")
	if _, err := report.CheckBlock(tpu.V5e, tr, []int64{256, 512}, 1); err == nil || !strings.Contains(err.Error(), "not one a Pallas TPU operand has") {
		t.Errorf("transposed layout: %v", err)
	}
	if _, err := report.CheckBlock(tpu.V5e, sh, []int64{256, 512}, 65); err == nil {
		t.Error("65 operands: no error")
	}
}

func TestInfoTilingOmittedUnlessAdded(t *testing.T) {
	ix := testfiles.Compile(t, "bf16[16,256]{1,0:T(8,128)(2,1)}")
	b, _ := json.Marshal(report.NewInfo(ix).AddInsight(tpu.V5e))
	if strings.Contains(string(b), "tile_count") || !strings.Contains(string(b), `"expansion":1`) {
		t.Errorf("info with insight: %s", b)
	}
	in := report.NewInfo(ix).AddTiling(tpu.V5e)
	if in.TileCount != 4 || in.TPU == nil || in.Insight != nil {
		t.Errorf("tiling: %+v", in.Tiling)
	}
}

// An entry that returns the empty tuple has a result row: shape (), no bytes; the
// total counts the arrays only.
func TestHLOEmptyTupleResult(t *testing.T) {
	m, err := hlo.Parse([]byte("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT t = () tuple()\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := report.NewHLO(m, report.HLOOptions{})
	if len(rep.Rows) != 2 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	r := rep.Rows[1]
	if r.Kind != "result" || r.Name != "t" || r.Shape != "()" || !r.Sized || r.Logical != 0 || r.Footprint != 0 {
		t.Errorf("result row %+v", r)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "total: 1 array, 32 bytes logical") {
		t.Errorf("text:\n%s", b.String())
	}
}

// The notes on untiled dumps name the setting To by the caller's word for it.
func TestHLONotesNameTo(t *testing.T) {
	m, err := hlo.Parse([]byte("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    report.HLOOptions
		want string
	}{
		{report.HLOOptions{}, "; <To> tpu:GEN shows a generation's defaults\n"},
		{report.HLOOptions{Retile: true, Gen: tpu.V5e}, "shown with <To>'s default device layout\n"},
	} {
		var b, plain strings.Builder
		rep := report.NewHLO(m, c.o)
		if err := rep.WriteWords(&b, func(f string) string { return "<" + f + ">" }); err != nil || !strings.Contains(b.String(), c.want) {
			t.Errorf("%+v: %v\n%s", c.o, err, b.String())
		}
		if err := rep.WriteText(&plain); err != nil || plain.String() != strings.ReplaceAll(b.String(), "<To>", "To") {
			t.Errorf("%+v: WriteText %v\n%s", c.o, err, plain.String())
		}
	}
}

// info of a layout whose later tile pads beyond its first names XLA's ArraySize beside
// the footprint; an untiled L(n) is said not to apply (XLA sizes it as its elements).
func TestInfoXLAArraySize(t *testing.T) {
	for shape, want := range map[string][]string{
		"f32[3,5]{1,0:T(2,2)(3,1)}": {"footprint:       36 elements, 144 bytes", "XLA ArraySize:   96 bytes: from the first tile alone"},
		"f32[10,10]{1,0:L(3)}":      {"L(3) not applied", "footprint:       100 elements, 400 bytes"},
		"f32[3,5]{1,0:T(2,2)}":      {"footprint:       24 elements, 96 bytes"},
	} {
		var b strings.Builder
		if err := report.NewInfo(testfiles.Compile(t, shape)).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", shape, w, b.String())
			}
		}
		if strings.Contains(shape, "(3,1)") != strings.Contains(b.String(), "XLA ArraySize") {
			t.Errorf("%s: XLA ArraySize line where sizes agree, or none where they differ:\n%s", shape, b.String())
		}
	}
}

// TestParseIndex reads explain's INDEX forms and says what is wrong with a bad one.
func TestParseIndex(t *testing.T) {
	dims := []int64{4, 6}
	for _, c := range []struct {
		text string
		want []int64
		err  string
	}{
		{"2,3", []int64{2, 3}, ""},
		{" (2, 3) ", []int64{2, 3}, ""},
		{"[0,5]", []int64{0, 5}, ""},
		{"2", nil, `bad index "2": it has 1 coordinates, but the shape has rank 2 (dims [4,6])`},
		{"2,", nil, `bad index "2,": empty coordinate`},
		{"2,x", nil, `bad index "2,x": coordinate "x" is not a number`},
		{"4,0", nil, `bad index "4,0": coordinate 4 is out of range for dimension 0 of size 4`},
		{"1,99999999999999999999", nil, `bad index "1,99999999999999999999": coordinate "99999999999999999999" is out of range`},
	} {
		got, err := report.ParseIndex(c.text, dims)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v, want %q", c.text, err, c.err)
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	if got, err := report.ParseIndex("()", nil); err != nil || len(got) != 0 {
		t.Errorf("a scalar's index: %v, %v", got, err)
	}
}
