package validate

import (
	"flag"
	"testing"
)

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
