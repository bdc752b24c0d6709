package report

import (
	"errors"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
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

// TestNoTPU: an array with no TPU layout is noted with the reason of tpu's typed error.
func TestNoTPU(t *testing.T) {
	_, err := tpu.Alternatives(tpu.V5e, layout.C64, []int64{8, 128})
	if got, want := noTPU(err), "c64 (64 bits) has no TPU vreg layout: elements must be 2, 4, 8, 16 or 32 bits"; got != want {
		t.Errorf("c64: %q, want %q", got, want)
	}
	if got := noTPU(errors.New("other")); got != "other" {
		t.Errorf("other: %q", got)
	}
}
