package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// The --to grammar: what layout OUT gets.

// resolveTarget works out OUT's shape from --to and --dtype for a source of shape src.
// floatOnly applies --dtype to floating-point sources only (for --all).
func resolveTarget(to, dtypeText string, src layout.Shape, outKind fileKind, floatOnly bool) (layout.Shape, error) {
	dt := src.DType
	if dtypeText != "" {
		d, ok := layout.DTypeByName(dtypeText)
		if !ok || !d.IsArray() {
			return layout.Shape{}, usagef("unknown --dtype %q (use XLA's names: f32, bf16, f16, s8, …)", dtypeText)
		}
		if !floatOnly || src.DType.IsFloat() {
			dt = d
		}
	}
	dims := src.Dims
	srcText := layout.NewShape(src.DType, dims...).String()
	var dst layout.Shape
	switch {
	case to == "":
		if outKind == kindRaw {
			return layout.Shape{}, usagef("missing --to: the layout of the device image OUT, such as 'bf16[…]{1,0:T(8,128)(2,1)}', a layout '{1,0:T(8,128)(2,1)}' or tpu:v5e")
		}
		dst = layout.NewShape(dt, dims...)
	case strings.HasPrefix(to, "tpu:"):
		gen, err := tpu.ParseGeneration(strings.TrimPrefix(to, "tpu:"))
		if err != nil {
			return layout.Shape{}, usagef("bad --to %q: %s", layout.Quote(to), cleanErr(err))
		}
		s, err := tpu.DefaultShape(gen, dt, dims)
		if err != nil {
			return layout.Shape{}, fmt.Errorf("no default %s layout for %s: %s", gen, layout.NewShape(dt, dims...), cleanErr(err))
		}
		dst = s
	case strings.HasPrefix(strings.TrimSpace(to), "{"):
		if _, err := layout.ParseLayout(to); err != nil {
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				return layout.Shape{}, fmt.Errorf("bad --to layout %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
			}
			return layout.Shape{}, fmt.Errorf("bad --to layout %q: %s", layout.Quote(to), cleanErr(err))
		}
		text := dt.String() + fmtDims(dims) + strings.TrimSpace(to)
		s, err := layout.Parse(text)
		if err != nil {
			msg := cleanErr(err)
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return layout.Shape{}, fmt.Errorf("--to layout %s does not fit IN's %s: %s", to, srcText, msg)
		}
		dst = s
	default:
		if d, ok := layout.DTypeByName(to); ok && d.IsArray() {
			if dtypeText != "" && d != dt {
				return layout.Shape{}, usagef("--to %s and --dtype %s disagree", to, dtypeText)
			}
			dst = layout.NewShape(d, dims...)
			break
		}
		ix, err := compileShape(to)
		if err != nil {
			return layout.Shape{}, fmt.Errorf("--to: %w", err)
		}
		dst = ix.Shape()
		if !slices.Equal(dst.Dims, dims) {
			return layout.Shape{}, fmt.Errorf("--to %s has dims %s, but IN %s has dims %s", to, fmtDims(dst.Dims), srcText, fmtDims(dims))
		}
		if dtypeText != "" && dst.DType != dt {
			return layout.Shape{}, usagef("--to %s and --dtype %s disagree", to, dtypeText)
		}
	}
	ix, err := layout.Compile(dst)
	if err != nil {
		return layout.Shape{}, fmt.Errorf("OUT shape %s: %s", dst, cleanErr(err))
	}
	dst = ix.Shape()
	if outKind != kindRaw && !isRowMajor(ix) {
		return layout.Shape{}, usagef("OUT is a %s file, which holds a row-major host array, but --to %s is a device layout; write the device image to a raw file (say OUT.bin)", outKind, to)
	}
	return dst, nil
}

// isRowMajor reports whether ix is the dense row-major layout of whole-byte elements.
func isRowMajor(ix *layout.Indexer) bool {
	return ix.IsRowMajorDense() && ix.Shape().Layout.PrefixBytes == 0
}
