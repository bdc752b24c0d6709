package convert

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// Target works out the shape Out gets from j.To and j.DType for a source of shape src:
//
//	bf16[4096,4096]{1,0:T(8,128)(2,1)}  a shape: its dims must be src's; another dtype converts
//	{1,0:T(8,128)(2,1)}                 a layout alone, for src's dims and DType (default src's)
//	tpu:v5e                             the generation's default device layout (see Guess)
//	hlo:MODULE.txt:param=N              the layout a compiled program gives (see ParseShape)
//	f32                                 a dtype alone: row-major, for host files
//
// out is the format of Out: a host file (.npy, .safetensors) holds row-major arrays
// only, and a raw Out needs a To. floatOnly applies DType to floating-point sources
// only (for All).
func (j *Job) Target(src layout.Shape, out Format, floatOnly bool) (layout.Shape, error) {
	ix, err := j.target(src, out, floatOnly)
	if err != nil {
		return layout.Shape{}, err
	}
	return ix.Shape(), nil
}

// target is [Job.Target], compiled: the shape is its Shape.
func (j *Job) target(src layout.Shape, out Format, floatOnly bool) (*layout.Indexer, error) {
	n := names{}
	to, dtypeText := j.To, j.DType
	dt := src.DType
	if dtypeText != "" {
		d, ok := layout.DTypeByName(dtypeText)
		if !ok || !d.IsArray() {
			return nil, n.errf(Setting, "unknown {DType} %q (use XLA's names: f32, bf16, f16, s8, …)", dtypeText)
		}
		if !floatOnly || src.DType.IsFloat() {
			dt = d
		}
	}
	dims := src.Dims
	srcText := layout.NewShape(src.DType, dims...).String()
	var dst layout.Shape
	var ix *layout.Indexer // To's compiled shape, when To is one
	switch {
	case to == "":
		if out == Raw {
			return nil, n.errf(Setting, "missing {To}: the layout of the device image {Out}, such as 'bf16[…]{1,0:T(8,128)(2,1)}', a layout '{1,0:T(8,128)(2,1)}' or tpu:v5e")
		}
		dst = layout.NewShape(dt, dims...)
	case strings.HasPrefix(to, "tpu:"):
		gen, err := tpu.ParseGeneration(strings.TrimPrefix(to, "tpu:"))
		if err != nil {
			return nil, n.errf(Setting, "bad {To} %q: %s", layout.Quote(to), err)
		}
		s, err := tpu.DefaultShape(gen, dt, dims)
		if err != nil {
			return nil, inputf("no default %s layout for %s: %s", gen, layout.NewShape(dt, dims...), err)
		}
		dst = s
	case strings.HasPrefix(strings.TrimSpace(to), "{"):
		if _, err := layout.ParseLayout(to); err != nil {
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				return nil, n.errf(Input, "bad {To} layout %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
			}
			return nil, n.errf(Input, "bad {To} layout %q: %s", layout.Quote(to), err)
		}
		text := dt.String() + report.DimsText(dims) + strings.TrimSpace(to)
		s, err := layout.Parse(text)
		if err != nil {
			var msg any = err
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return nil, n.errf(Input, "{To} layout %s does not fit {In}'s %s: %s", to, srcText, msg)
		}
		dst = s
	default:
		if d, ok := layout.DTypeByName(to); ok && d.IsArray() {
			if dtypeText != "" && d != dt {
				return nil, n.errf(Setting, "{To} %s and {DType} %s disagree", to, dtypeText)
			}
			dst = layout.NewShape(d, dims...)
			break
		}
		var err error
		if ix, err = CompileShape(to); err != nil {
			if gen, gerr := tpu.ParseGeneration(to); gerr == nil { // "v5e" for "tpu:v5e"
				return nil, n.wrapf(err, "{To}: %s (did you mean tpu:%s?)", err, gen)
			}
			return nil, n.wrapf(err, "{To}: %s", err)
		}
		dst = ix.Shape()
		if !slices.Equal(dst.Dims, dims) {
			return nil, n.errf(Input, "{To} %s has dims %s, but {In} %s has dims %s", to, report.DimsText(dst.Dims), srcText, report.DimsText(dims))
		}
		if dtypeText != "" && dst.DType != dt {
			return nil, n.errf(Setting, "{To} %s and {DType} %s disagree", to, dtypeText)
		}
	}
	if ix == nil {
		var err error
		if ix, err = layout.Compile(dst); err != nil {
			return nil, n.errf(Input, "{Out} shape %s: %s", dst, err)
		}
	}
	if out != Raw && !isRowMajor(ix) {
		return nil, n.errf(Setting, "{Out} is a %s file, which holds a row-major host array, but {To} %s is a device layout; write the device image to a raw file (say {Out}.bin)", out, to)
	}
	return ix, nil
}

// isRowMajor reports whether ix is the dense row-major layout of whole-byte elements.
func isRowMajor(ix *layout.Indexer) bool {
	return ix.IsRowMajorDense() && ix.Shape().Layout.PrefixBytes == 0
}

// Guess returns why the default layout dst that To tpu:GEN gave is a guess (where
// XLA's dumps conflict or none speaks for the generation, see tpu.DefaultEvidence), or
// "" when To is something else or the dumps back the default.
func Guess(to string, dst layout.Shape) string {
	g, ok := strings.CutPrefix(to, "tpu:")
	if !ok {
		return ""
	}
	gen, err := tpu.ParseGeneration(g)
	if err != nil {
		return ""
	}
	if e := tpu.DefaultEvidence(gen, dst.DType, dst.Dims); e.Guess {
		return e.Why
	}
	return ""
}

// GuessLine is the note for one array whose To default dst is a guess for why; hint is
// how to take the layout from the program instead.
func GuessLine(to string, dst layout.Shape, why, hint string) string {
	return fmt.Sprintf("note: the %s default %s is a guess: %s; the program's own layout is exact: %s", to, dst, why, hint)
}

// Guesses gathers the guessed defaults of a conversion of many tensors, to report
// them in one line. Its zero value is ready once To is set.
type Guesses struct {
	To    string
	n     int    // tensors whose default is a guess
	first string // the first of them, with why
	seen  map[string]bool
}

// Add notes tensor name's target dst (each name counts once: a sharded conversion
// resolves every shard).
func (g *Guesses) Add(name string, dst layout.Shape) {
	if why := Guess(g.To, dst); why != "" {
		g.AddWhy(name, dst.String(), why)
	}
}

// AddWhy notes tensor name, whose default layout is a guess for why (as
// sharding.Conversion.Guessed gives them).
func (g *Guesses) AddWhy(name, dst, why string) {
	if g.seen[name] {
		return
	}
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	g.seen[name] = true
	if g.n == 0 {
		g.first = fmt.Sprintf("%s %s: %s", name, dst, why)
	}
	g.n++
}

// Line is the note for total tensors, or "" when no default was a guess; hint is how
// to take the layouts from the program instead.
func (g *Guesses) Line(total int, hint string) string {
	if g.n == 0 {
		return ""
	}
	return fmt.Sprintf("note: the %s defaults of %d of %s are guesses (first %s); the program's own layouts are exact: %s",
		g.To, g.n, report.Plural(int64(total), "tensor"), g.first, hint)
}
