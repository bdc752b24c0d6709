package sharding

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// ResolveTarget is the device layout of a shard of row-major shape shard, from to and
// dtype as `tpulayout convert --to … --dtype …` takes them: tpu:GEN (that
// generation's default layout), a layout alone such as "{1,0:T(8,128)(2,1)}", a dtype
// name (row-major), or a whole shape with the shard's dims. dtype ("" for the
// source's) applies to a layout alone and tpu:GEN; with floatOnly, to floating-point
// sources only (a conversion of every tensor keeps integer tensors as they are). The
// messages are the CLI's, which names the options --to and --dtype.
func ResolveTarget(to, dtype string, shard layout.Shape, floatOnly bool) (layout.Shape, error) {
	dt := shard.DType
	if dtype != "" {
		d, ok := layout.DTypeByName(dtype)
		if !ok || !d.IsArray() {
			return layout.Shape{}, fmt.Errorf("unknown --dtype %q (use XLA's names: f32, bf16, f16, s8, …)", dtype)
		}
		if !floatOnly || shard.DType.IsFloat() {
			dt = d
		}
	}
	dims := shard.Dims
	srcText := layout.NewShape(shard.DType, dims...).String()
	var dst layout.Shape
	switch {
	case to == "":
		return layout.Shape{}, errors.New("missing --to: the device layout of the shards, tpu:GEN or a layout alone such as '{1,0:T(8,128)(2,1)}'")
	case strings.HasPrefix(to, "tpu:"):
		gen, err := tpu.ParseGeneration(strings.TrimPrefix(to, "tpu:"))
		if err != nil {
			return layout.Shape{}, fmt.Errorf("bad --to %q: %s", layout.Quote(to), strings.TrimPrefix(err.Error(), "tpu: "))
		}
		s, err := tpu.DefaultShape(gen, dt, dims)
		if err != nil {
			return layout.Shape{}, fmt.Errorf("no default %s layout for %s: %s", gen, layout.NewShape(dt, dims...), strings.TrimPrefix(err.Error(), "tpu: "))
		}
		dst = s
	case strings.HasPrefix(strings.TrimSpace(to), "{"):
		if _, err := layout.ParseLayout(to); err != nil {
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				return layout.Shape{}, fmt.Errorf("bad --to layout %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
			}
			return layout.Shape{}, fmt.Errorf("bad --to layout %q: %s", layout.Quote(to), strings.TrimPrefix(err.Error(), "layout: "))
		}
		s, err := layout.Parse(dt.String() + dimsText(dims) + strings.TrimSpace(to))
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "layout: ")
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return layout.Shape{}, fmt.Errorf("--to layout %s does not fit IN's %s: %s", to, srcText, msg)
		}
		dst = s
	default:
		if d, ok := layout.DTypeByName(to); ok && d.IsArray() {
			if dtype != "" && d != dt {
				return layout.Shape{}, fmt.Errorf("--to %s and --dtype %s disagree", to, dtype)
			}
			dst = layout.NewShape(d, dims...)
			break
		}
		s, err := layout.Parse(to)
		if err != nil {
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				return layout.Shape{}, fmt.Errorf("--to: bad shape %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
			}
			return layout.Shape{}, fmt.Errorf("--to: bad shape %q: %s", layout.Quote(to), strings.TrimPrefix(err.Error(), "layout: "))
		}
		if !slices.Equal(s.Dims, dims) {
			return layout.Shape{}, fmt.Errorf("--to %s has dims %s, but IN %s has dims %s", to, dimsText(s.Dims), srcText, dimsText(dims))
		}
		if dtype != "" && s.DType != dt {
			return layout.Shape{}, fmt.Errorf("--to %s and --dtype %s disagree", to, dtype)
		}
		dst = s
	}
	ix, err := layout.Compile(dst)
	if err != nil {
		return layout.Shape{}, fmt.Errorf("OUT shape %s: %s", dst, strings.TrimPrefix(err.Error(), "layout: "))
	}
	return ix.Shape(), nil
}

// dimsText prints dims as XLA does: [3,5].
func dimsText(d []int64) string {
	parts := make([]string, len(d))
	for i, v := range d {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
