package buffer

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// View returns a buffer over the same bytes, with the same dims and layout, whose
// elements are read as dt, a type of the same width: bf16 bits stored as u16 become
// bf16 elements, bit for bit (NumPy's ndarray.view). Nothing is copied or converted.
// The view shares b's memory, including a read-only mapping: close b, not the view,
// and do not use the view after b is closed.
func (b *Buffer) View(dt layout.DType) (*Buffer, error) {
	if !dt.IsArray() {
		return nil, fmt.Errorf("%w: cannot view elements as %v", ErrShape, dt)
	}
	if dt.Bits() != b.dt.Bits() {
		return nil, fmt.Errorf("%w: cannot view %d-bit %v elements as %d-bit %v", ErrShape, b.dt.Bits(), b.dt, dt.Bits(), dt)
	}
	s := b.Shape
	s.DType = dt
	v, err := newHeader(s)
	if err != nil {
		return nil, err
	}
	if v.bits != b.bits {
		return nil, fmt.Errorf("%w: %v stores %d bits an element, %v %d", ErrShape, v.Shape, v.bits, b.Shape, b.bits)
	}
	v.Data = b.Data
	v.mapped = b.mapped
	return v, nil
}
