package relayout

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// Types with no conversion between them are still an ErrShape, but the message says
// that the types differ, not the shapes.
func TestNewPlanTypesWithoutConversion(t *testing.T) {
	dst, _ := layout.Parse("c64[3]")
	src, _ := layout.Parse("c128[3]")
	_, err := NewPlan(dst, src)
	if !errors.Is(err, ErrShape) {
		t.Fatalf("NewPlan(c64, c128) = %v, want an ErrShape", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "element types differ") || !strings.Contains(msg, "c128 to c64") || strings.Contains(msg, "shapes do not match") {
		t.Errorf("NewPlan(c64, c128): %q does not say that the types differ", msg)
	}
}
