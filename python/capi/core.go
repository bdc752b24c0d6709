package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// apiError is an error as the Python package receives it.
type apiError struct {
	Kind string `json:"kind"`
	Msg  string `json:"msg"`
	Pos  int    `json:"pos"`             // byte position in Input, for kind "layout"
	In   string `json:"input,omitempty"` // the text that failed to parse
}

// classify sorts err into the kinds the Python package turns into exception classes.
func classify(err error) apiError {
	var pe *layout.ParseError
	switch {
	case errors.As(err, &pe):
		return apiError{Kind: "layout", Msg: pyText(err), Pos: pe.Pos, In: pe.Input}
	case errors.Is(err, relayout.ErrShape):
		return apiError{Kind: "shape", Msg: pyText(err), Pos: -1}
	case errors.Is(err, buffer.ErrSize):
		return apiError{Kind: "size", Msg: pyText(err), Pos: -1}
	}
	return apiError{Kind: "value", Msg: pyText(err), Pos: -1}
}

// errorJSON is the JSON form of err.
func errorJSON(err error) []byte {
	var e apiError
	var ie internalError
	if errors.As(err, &ie) {
		e = apiError{Kind: "internal", Msg: pyText(err), Pos: -1}
	} else {
		e = classify(err)
	}
	b, _ := json.Marshal(e)
	return b
}

// internalError is a panic recovered at the boundary.
type internalError struct{ v any }

func (e internalError) Error() string {
	return fmt.Sprintf("tpulayout: internal error (please report): %v", e.v)
}

// parseArray parses an array shape (not a tuple or buffer) and compiles its index math.
func parseArray(text string) (*layout.Indexer, error) {
	sh, err := layout.Parse(text)
	if err != nil {
		return nil, err
	}
	if sh.Kind != layout.Array {
		return nil, fmt.Errorf("tpulayout: %q is not an array shape", text)
	}
	return layout.Compile(sh)
}

// planOptions turns the C arguments into relayout options: workers ≤ 0 means the
// library's default, pad "zero", "leave" or "value" (with padValue).
func planOptions(workers int, pad string, padValue float64) ([]relayout.Option, error) {
	var opts []relayout.Option
	if workers > 0 {
		opts = append(opts, relayout.WithWorkers(workers))
	}
	switch pad {
	case "", "zero":
	case "leave":
		opts = append(opts, relayout.WithPadLeave())
	case "value":
		opts = append(opts, relayout.WithPadValue(padValue))
	default:
		return nil, fmt.Errorf("tpulayout: pad %q: want zero, leave or value", pad)
	}
	return opts, nil
}

// newPlan compiles a relayout between two array shapes given as text.
func newPlan(dst, src string, workers int, pad string, padValue float64) (*relayout.Plan, error) {
	ds, err := parseArray(dst)
	if err != nil {
		return nil, err
	}
	ss, err := parseArray(src)
	if err != nil {
		return nil, err
	}
	opts, err := planOptions(workers, pad, padValue)
	if err != nil {
		return nil, err
	}
	if pad == "value" {
		if err := checkPadValue(padValue, ds.Shape().DType); err != nil {
			return nil, fmt.Errorf("tpulayout: %w", err)
		}
	}
	return relayout.NewPlan(ds.Shape(), ss.Shape(), opts...)
}

// checkPadValue refuses a pad the destination type does not hold exactly: it would be
// converted like an element (saturated, truncated, rounded) and written as another
// number unsaid, as the CLI's --pad refuses too (convert.CheckPadValue).
func checkPadValue(v float64, dt layout.DType) error {
	if err := convert.CheckPadValue(v, dt); err != nil {
		return pyError{err}
	}
	return nil
}

// planJSON describes a plan for the Python Plan object.
func planJSON(p *relayout.Plan, dst, src string) []byte {
	b, _ := json.Marshal(struct {
		Dst      string `json:"dst"`
		Src      string `json:"src"`
		SrcBytes int64  `json:"src_bytes"`
		DstBytes int64  `json:"dst_bytes"`
		Kernel   string `json:"kernel"`
		Describe string `json:"describe"`
	}{dst, src, p.SrcBytes(), p.DstBytes(), p.Kernel(), p.String()})
	return b
}

// info describes shape text as the Python package's parse and info take it: `tpulayout
// info --json`'s description and the tiling figures of generation gen ("" for the
// default one), and with insight the CLI's insight on that generation too.
func info(text, gen string, insight bool) ([]byte, error) {
	// A sparse layout has no index math: it is described as `tpulayout info` does.
	if sh, err := layout.Parse(text); err == nil && sh.Kind == layout.Array && sh.Layout.IsSparse() {
		d, err := layout.DescribeSparse(sh)
		if err != nil {
			return nil, err
		}
		return json.Marshal(d)
	}
	ix, err := parseArray(text)
	if err != nil {
		return nil, err
	}
	g := tpu.NoGeneration
	if gen != "" {
		if g, err = tpu.ParseGeneration(gen); err != nil {
			return nil, err
		}
	}
	in := report.NewInfo(ix).AddTiling(g)
	if insight {
		if g == tpu.NoGeneration {
			g = tpu.DefaultGeneration
		}
		in.AddInsight(g)
	}
	return json.Marshal(in)
}

// defaultLayout is the TPU default shape of dtype and dims on generation gen ("" for
// the default generation), as text.
func defaultLayout(dtype string, dims []int64, gen string) (string, error) {
	dt, ok := layout.DTypeByName(strings.TrimSpace(dtype))
	if !ok {
		return "", fmt.Errorf("tpulayout: unknown dtype %q", dtype)
	}
	g := tpu.NoGeneration
	if gen != "" {
		var err error
		if g, err = tpu.ParseGeneration(gen); err != nil {
			return "", err
		}
	}
	sh, err := tpu.DefaultShape(g, dt, dims)
	if err != nil {
		return "", err
	}
	// Parse checks what DefaultShape does not: that the footprint's size fits in int64.
	if _, err := layout.Parse(sh.String()); err != nil {
		return "", err
	}
	return sh.String(), nil
}
