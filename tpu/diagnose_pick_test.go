package tpu

import (
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestPickTies checks which candidate Diagnose names: none on a tie of different
// hypotheses (same name or not), none that does not beat the declared layout, one of
// several names for the same hypothesis.
func TestPickTies(t *testing.T) {
	arr := func(kind, lay string, matched int64, fp uint64) arrangement {
		return arrangement{Candidate: Candidate{Arrangement: kind, Layout: lay, Matched: matched}, fp: fp}
	}
	for _, c := range []struct {
		name  string
		cands []arrangement
		best  string
		tied  int
	}{
		{"declared best", []arrangement{arr(ArrDeclared, "", 99, 1), arr(ArrUntiled, "", 99, 1)}, ArrDeclared, 0},
		{"tie with declared", []arrangement{arr(ArrFirstTile, "a", 99, 2), arr(ArrDeclared, "", 99, 1)}, ArrDeclared, 0},
		{"one better", []arrangement{arr(ArrNoPacking, "", 100, 2), arr(ArrDeclared, "", 10, 1)}, ArrNoPacking, 0},
		{"same hypothesis", []arrangement{arr(ArrNoPacking, "", 100, 2), arr(ArrUntiled, "", 100, 2), arr(ArrDeclared, "", 10, 1)}, ArrNoPacking, 0},
		{"two hypotheses", []arrangement{arr(ArrNoPacking, "", 100, 2), arr(ArrUntiled, "", 100, 3), arr(ArrDeclared, "", 10, 1)}, ArrDeclared, 2},
		{"same name", []arrangement{arr(ArrFirstTile, "a", 50, 2), arr(ArrFirstTile, "b", 50, 3), arr(ArrDeclared, "", 10, 1)}, ArrDeclared, 2},
	} {
		best, tied := pick(c.cands)
		if best.Arrangement != c.best || len(tied) != c.tied {
			t.Errorf("%s: best %s, tied %v", c.name, best.Arrangement, tied)
		}
	}
}

// TestDiagnosisStringPercent: 99999 of 100000 is not "100%".
func TestDiagnosisStringPercent(t *testing.T) {
	d := &Diagnosis{Best: Candidate{Arrangement: ArrDeclared, Matched: 99999, Fraction: 0.99999}, Examined: 100000}
	if s := d.String(); strings.Contains(s, "100%") || !strings.Contains(s, "99.999%") {
		t.Errorf("%s", s)
	}
}

// TestFootprintStringPercent: a sliver of padding is not "0.0%".
func TestFootprintStringPercent(t *testing.T) {
	f, err := FootprintOf(V5e, layout.MustParse("f32[65535,128]"))
	if err != nil {
		t.Fatal(err)
	}
	if s := f.String(); !strings.Contains(s, "0.002% padding") {
		t.Errorf("%s", s)
	}
}
