package report

import (
	"slices"
	"testing"
)

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
		got, err := ParseIndex(c.text, dims)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v, want %q", c.text, err, c.err)
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	if got, err := ParseIndex("()", nil); err != nil || len(got) != 0 {
		t.Errorf("a scalar's index: %v, %v", got, err)
	}
}
