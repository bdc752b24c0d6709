package tpu

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// ElementError is an element type that has no TPU vreg layout: not an array element
// type at all (Bits 0), or one of Bits bits, where the vregs hold 2, 4, 8, 16 or 32.
type ElementError struct {
	DType layout.DType
	Bits  int
}

func (e *ElementError) Error() string { return "tpu: " + e.Reason() }

// Reason is the error without the package's prefix: why DType has no layout.
func (e *ElementError) Reason() string {
	if e.Bits == 0 {
		return fmt.Sprintf("%s is not an array element type", e.DType)
	}
	return fmt.Sprintf("%s (%d bits) has no TPU vreg layout: elements must be 2, 4, 8, 16 or 32 bits", e.DType, e.Bits)
}

// AlternativeError is a layout that Alternatives tried for an array and could not
// compile: Shape is the array in that layout, Err layout's error, which it unwraps to.
type AlternativeError struct {
	Shape layout.Shape
	Err   error
}

func (e *AlternativeError) Error() string { return "tpu: " + e.Reason() }
func (e *AlternativeError) Unwrap() error { return e.Err }

// Reason is the error without the package's prefix.
func (e *AlternativeError) Reason() string { return fmt.Sprintf("%s: %s", e.Shape, e.Err) }
