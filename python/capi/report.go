package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/tpu"
)

// reportRequest is the JSON the Python package passes to tl_report: which report and
// its arguments, named as the Python functions name them.
type reportRequest struct {
	Report string `json:"report"` // info, explain, hlo, blockspec, verify or gather

	Layout string  `json:"layout"` // info, explain: the array shape
	Index  []int64 `json:"index"`  // explain: a logical index, or
	Offset *int64  `json:"offset"` // explain: an element offset

	Text string `json:"text"` // hlo: the module's text
	All  bool   `json:"all"`
	To   string `json:"to"`   // hlo: a generation whose default layouts untiled arrays take
	Sort string `json:"sort"` // hlo: "file" or "padding"

	Array    string  `json:"array"` // blockspec: the array's shape
	Block    []int64 `json:"block"`
	Gen      string  `json:"gen"` // blockspec, info
	Operands int     `json:"operands"`

	Dir    string `json:"dir"`    // verify, gather: a sharded conversion's directory
	Source string `json:"source"` // verify: the checkpoint ("" for the manifest's)
	Out    string `json:"out"`    // gather: the .safetensors file to write
}

// generation parses a generation name; "" is the default generation.
func generation(name string) (tpu.Generation, error) {
	if name == "" {
		return tpu.DefaultGeneration, nil
	}
	return tpu.ParseGeneration(name)
}

// buildReport answers a tl_report request with the report's JSON: the same value
// `tpulayout VERB --json` prints.
func buildReport(reqJSON string) ([]byte, error) {
	var q reportRequest
	if err := json.Unmarshal([]byte(reqJSON), &q); err != nil {
		return nil, fmt.Errorf("tpulayout: report request: %w", err)
	}
	var rep any
	switch q.Report {
	case "info":
		return info(q.Layout, q.Gen, true)
	case "explain":
		ix, err := parseArray(q.Layout)
		if err != nil {
			return nil, err
		}
		switch {
		case q.Offset != nil && q.Index != nil:
			return nil, fmt.Errorf("tpulayout: explain takes an index or an offset, not both")
		case q.Offset != nil:
			rep, err = report.ExplainOffset(ix, *q.Offset)
		case q.Index != nil:
			rep, err = report.ExplainIndex(ix, q.Index)
		default:
			return nil, fmt.Errorf("tpulayout: explain needs an index or an offset")
		}
		if err != nil {
			return nil, err
		}
	case "hlo":
		m, err := hlo.Parse([]byte(q.Text))
		if err != nil {
			return nil, err
		}
		o := report.HLOOptions{All: q.All}
		switch q.Sort {
		case "", "file":
		case "padding":
			o.SortByPadding = true
		default:
			return nil, fmt.Errorf("tpulayout: sort %q: want file or padding", q.Sort)
		}
		if q.To != "" {
			if o.Gen, err = tpu.ParseGeneration(q.To); err != nil {
				return nil, err
			}
			o.Retile = true
		}
		rep = report.NewHLO(m, o)
	case "blockspec":
		g, err := generation(q.Gen)
		if err != nil {
			return nil, err
		}
		sh, err := layout.Parse(q.Array)
		if err != nil {
			return nil, err
		}
		if rep, err = report.CheckBlock(g, sh, q.Block, q.Operands); err != nil {
			return nil, err
		}
	case "verify":
		r, err := sharding.Verify(q.Dir, q.Source)
		if err != nil {
			return nil, err
		}
		if r.Problems == nil {
			r.Problems = []sharding.Problem{}
		}
		rep = r
	case "gather":
		if !strings.HasSuffix(strings.ToLower(q.Out), ".safetensors") {
			return nil, fmt.Errorf("tpulayout: gather writes a .safetensors file, not %q", q.Out)
		}
		m, err := sharding.Gather(q.Dir, q.Out)
		if err != nil {
			return nil, err
		}
		rep = m
	default:
		return nil, fmt.Errorf("tpulayout: unknown report %q", q.Report)
	}
	return json.Marshal(rep)
}
