package tpu

import (
	"errors"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestElementError: a dtype with no vreg layout is an *ElementError naming it and its
// bits, and its Reason is its message without the package's prefix.
func TestElementError(t *testing.T) {
	for _, c := range []struct {
		dt     layout.DType
		bits   int
		reason string
	}{
		{layout.C64, 64, "c64 (64 bits) has no TPU vreg layout: elements must be 2, 4, 8, 16 or 32 bits"},
		{layout.Token, 0, "token is not an array element type"},
	} {
		_, err := DefaultLayout(V5e, c.dt, []int64{8, 128})
		var ee *ElementError
		if !errors.As(err, &ee) || ee.DType != c.dt || ee.Bits != c.bits || ee.Reason() != c.reason || err.Error() != "tpu: "+c.reason {
			t.Errorf("%s: %v, want an ElementError %q", c.dt, err, c.reason)
		}
	}
}

// TestAlternativeError: a layout that does not compile is an *AlternativeError naming
// the shape and unwrapping to layout's error.
func TestAlternativeError(t *testing.T) {
	cause := errors.New("layout: too large")
	e := &AlternativeError{Shape: layout.NewShape(layout.F32, 8), Err: cause}
	if !errors.Is(e, cause) || e.Reason() != "f32[8]{0}: layout: too large" || e.Error() != "tpu: f32[8]{0}: layout: too large" {
		t.Errorf("%v (%q)", e, e.Reason())
	}
}
