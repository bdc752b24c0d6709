package validate

import (
	"fmt"
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
