package main

import (
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// viewArray applies --view NAME to b, the array of IN or REF (what) read from path:
// its elements are read as NAME, a type of the same width, bit for bit (NumPy's .view),
// with the dims and layout kept. An empty NAME returns b itself. The view shares b's
// memory: b stays the one to close.
func viewArray(b *buffer.Buffer, name, what, path string) (*buffer.Buffer, error) {
	if name == "" {
		return b, nil
	}
	dt, ok := layout.DTypeByName(name)
	if !ok || !dt.IsArray() {
		return nil, usagef("unknown --view %q (use XLA's names: bf16, f16, u16, s16, f32, …)", name)
	}
	from := b.DType()
	if dt.Bits() != from.Bits() {
		return nil, usagef("--view %s reads %d-bit elements, but %s %s holds %s, %d-bit ones; --view takes a type of the same width: %s",
			dt, dt.Bits(), what, path, from, from.Bits(), sameWidth(from))
	}
	v, err := b.View(dt)
	if err != nil {
		return nil, fmt.Errorf("--view %s: %s", dt, cleanErr(err))
	}
	return v, nil
}

// sameWidth lists the types that elements of d can be viewed as.
func sameWidth(d layout.DType) string {
	var names []string
	for _, t := range layout.DTypes() {
		if t != d && t.IsArray() && t.Bits() == d.Bits() {
			names = append(names, t.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// viewNote is the note convert prints when IN holds integers that it converts, as
// numbers, to a floating-point type of the same width: a u16 array holding bf16 bits,
// as NumPy stores bf16 without ml_dtypes, would otherwise turn silently into a wrong
// image. Empty when it does not apply.
func viewNote(src, dst layout.DType) string {
	if !src.IsInteger() || !dst.IsFloat() || src.Bits() != dst.Bits() {
		return ""
	}
	return fmt.Sprintf("note: IN holds %s integers, converted to %s by value; if they are %s bits, add --view %s", src, dst, dst, dst)
}
