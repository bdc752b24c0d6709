package validate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tolerance relaxes the match: an element that is not bit-identical still matches when
// it is within ULP units in the last place of the compared type (for integer types: ULP
// apart in value), or when |actual-expected| <= Abs + Rel*|expected|. The zero value
// asks for bit-exact equality (any NaN matching any NaN).
type Tolerance struct {
	ULP uint64  `json:"ulp"`
	Abs float64 `json:"abs"`
	Rel float64 `json:"rel"`
}

// String gives the tolerance as the --tol flag spells it ("ulp=1,abs=1e-06"), or "" for
// the zero value.
func (t Tolerance) String() string {
	var parts []string
	if t.ULP > 0 {
		parts = append(parts, fmt.Sprintf("ulp=%d", t.ULP))
	}
	if t.Abs > 0 {
		parts = append(parts, "abs="+strconv.FormatFloat(t.Abs, 'g', -1, 64))
	}
	if t.Rel > 0 {
		parts = append(parts, "rel="+strconv.FormatFloat(t.Rel, 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

// TolFlag is a Tolerance as a flag.Value (the command's --tol): ulp=N, abs=X or
// rel=X, comma-joined or repeated; a key given twice is an error.
type TolFlag struct {
	Tolerance
	given uint8 // keys set so far, one bit each: a key given twice is an error
}

func (t *TolFlag) String() string {
	if t == nil {
		return ""
	}
	return t.Tolerance.String()
}

// Set adds the keys of s, such as "ulp=1,abs=1e-6".
func (t *TolFlag) Set(s string) error {
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return fmt.Errorf("%q is not K=V (ulp=N, abs=X or rel=X)", part)
		}
		if i := slices.Index([]string{"ulp", "abs", "rel"}, strings.ToLower(k)); i >= 0 {
			if t.given&(1<<i) != 0 {
				return fmt.Errorf("%s given twice; give each of ulp, abs and rel once", k)
			}
			t.given |= 1 << i
		}
		switch strings.ToLower(k) {
		case "ulp":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("ulp=%s: want a whole number of units", v)
			}
			t.ULP = n
		case "abs", "rel":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || math.IsNaN(x) {
				return fmt.Errorf("%s=%s: want a number ≥ 0", k, v)
			}
			if k == "abs" {
				t.Abs = x
			} else {
				t.Rel = x
			}
		default:
			return fmt.Errorf("unknown tolerance %q (want ulp, abs or rel)", k)
		}
	}
	return nil
}

// ParseTolerance reads a tolerance as --tol spells it (see TolFlag), such as
// "ulp=1,abs=1e-6".
func ParseTolerance(s string) (Tolerance, error) {
	var f TolFlag
	err := f.Set(s)
	return f.Tolerance, err
}
