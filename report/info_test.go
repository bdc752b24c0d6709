package report

import (
	"errors"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestRowBlocksNote: a layout whose row blocks were not worked out is noted with the
// reason of layout's RowBlocksError.
func TestRowBlocksNote(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&layout.RowBlocksError{Reason: "the layout combines dims"}, "row blocks not analysed: the layout combines dims"},
		{errors.New("other"), "other"},
	} {
		if got := rowBlocksNote(c.err); got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}
