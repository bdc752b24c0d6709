package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// HLO is `tpulayout hlo --json`: the arrays of an HLO module (its entry parameters and
// results, or every instruction) with their sizes and padding.
type HLO struct {
	Module      string   `json:"module"`
	Entry       string   `json:"entry"`
	EntryMarked bool     `json:"entry_marked"`
	Rows        []HLORow `json:"rows"`
	Logical     int64    `json:"total_logical_bytes"`
	Footprint   int64    `json:"total_footprint_bytes"`
	Expansion   float64  `json:"total_expansion"`
	Unknown     []string `json:"unknown_opcodes,omitempty"` // "op (line N)"
	// HeaderNote says where the entry_computation_layout header and the body differ
	// in what they list (counts), beyond the rows' body_shape.
	HeaderNote string `json:"header_note,omitempty"`

	params int // how many of Rows are parameters, while they are listed
}

// HLORow is one array of an [HLO] report: a parameter, a result or an instruction (one
// row per element of a tuple).
type HLORow struct {
	Kind      string  `json:"kind"` // parameter, result or instruction
	Number    *int    `json:"number,omitempty"`
	Index     string  `json:"index,omitempty"` // shape index within a tuple, "{1}"
	Name      string  `json:"name"`
	Opcode    string  `json:"opcode,omitempty"`
	Line      int     `json:"line,omitempty"`
	Shape     string  `json:"shape"`
	Layout    string  `json:"layout"`
	Logical   int64   `json:"logical_bytes"`
	Footprint int64   `json:"footprint_bytes"`
	Expansion float64 `json:"expansion"`
	Sized     bool    `json:"sized"`
	Retiled   bool    `json:"retiled,omitempty"` // the layout is the generation's default, not the dump's
	// From says where an entry parameter's or result's shape comes from: "header"
	// (entry_computation_layout) or "body" (the instruction).
	From string `json:"from,omitempty"`
	// Body is the body's shape where it differs from the header's.
	Body string `json:"body_shape,omitempty"`
	// Inferred: the text wrote no shape and this is the one XLA infers; NotWritten: no
	// shape was written and none is inferred here.
	Inferred   bool   `json:"inferred,omitempty"`
	NotWritten bool   `json:"shape_not_written,omitempty"`
	Note       string `json:"note,omitempty"`
}

// HLOOptions chooses what an [HLO] report lists.
type HLOOptions struct {
	// All lists every instruction of every computation, not only the entry
	// parameters and results.
	All bool
	// Retile gives arrays the dump leaves untiled (a dump before layout assignment)
	// the default device layout of generation Gen, marking their rows Retiled.
	Retile bool
	Gen    tpu.Generation
	// SortByPadding lists the worst expansion first (then the most padding bytes);
	// otherwise rows keep the order of the file.
	SortByPadding bool
}

func newHLORow(kind, name string, s layout.Shape) HLORow {
	r := HLORow{Kind: kind, Name: name, Shape: s.String(), Layout: "-"}
	if s.Kind == layout.Tuple && len(s.Elements) == 0 { // the empty tuple: no bytes
		r.Sized = true
		return r
	}
	if s.Kind == layout.Array && s.DType == layout.Invalid { // no shape written or inferred
		r.Shape, r.NotWritten = "-", true
		return r
	}
	if s.Kind == layout.Array {
		r.Shape = s.String()
		if l := s.Layout.String(); strings.HasSuffix(r.Shape, l) {
			r.Shape, r.Layout = strings.TrimSuffix(r.Shape, l), l
		}
		if r.Layout == "" || r.Layout == "-" {
			r.Layout = "{}"
		}
		if s.Layout.IsSparse() {
			r.Note = "sparse: footprint depends on the number of stored elements"
		}
		if ix, err := layout.Compile(s); err == nil {
			r.Sized = true
			r.Logical, r.Footprint = ix.LogicalBytes(), ix.FootprintBytes()
			if r.Logical > 0 {
				r.Expansion = float64(r.Footprint) / float64(r.Logical)
			}
		}
	}
	return r
}

// FlattenShape calls f with each array of shape s and its shape index within the
// tuple ("{1,0}"; "" for s itself when s is an array), in order. prefix is the index
// of s itself (nil at the top).
func FlattenShape(s layout.Shape, prefix []int, f func(idx string, s layout.Shape)) {
	if s.Kind != layout.Tuple {
		idx := ""
		if len(prefix) > 0 {
			idx = hlo.Result{Index: prefix}.IndexString()
		}
		f(idx, s)
		return
	}
	for i, e := range s.Elements {
		FlattenShape(e, append(slices.Clone(prefix), i), f)
	}
}

// retiler returns the function that gives an untiled array the default layout of gen.
func retiler(gen tpu.Generation) func(layout.Shape) layout.Shape {
	return func(s layout.Shape) layout.Shape {
		// A sparse layout is not untiled dense: a default would hide it.
		if s.Kind != layout.Array || len(s.Layout.Tiles) > 0 || s.Layout.IsSparse() {
			return s
		}
		if d, err := tpu.DefaultShape(gen, s.DType, s.Dims); err == nil {
			return d
		}
		return s
	}
}

// NewHLO lists the arrays of module m as o chooses.
func NewHLO(m *hlo.Module, o HLOOptions) *HLO {
	rep := &HLO{Module: m.Name, Entry: m.Entry.Name, EntryMarked: m.EntryMarked, Rows: []HLORow{}}
	var retile func(layout.Shape) layout.Shape
	if o.Retile {
		retile = retiler(o.Gen)
	}
	newRow := func(kind, name string, s layout.Shape) HLORow {
		if retile != nil {
			if t := retile(s); t.String() != s.String() {
				r := newHLORow(kind, name, t)
				r.Retiled = true
				return r
			}
		}
		return newHLORow(kind, name, s)
	}
	if o.All {
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				FlattenShape(*in.Shape, nil, func(idx string, s layout.Shape) {
					r := newRow("instruction", c.Name+"/"+in.Name, s)
					r.Index, r.Opcode, r.Line, r.Inferred = idx, in.Opcode, in.Line, in.Inferred && !in.NoShape
					rep.Rows = append(rep.Rows, r)
				})
			}
		}
	} else {
		rep.entryRows(m, newRow)
	}
	for _, r := range rep.Rows {
		rep.Logical += r.Logical
		rep.Footprint += r.Footprint
	}
	if rep.Logical > 0 {
		rep.Expansion = float64(rep.Footprint) / float64(rep.Logical)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if !in.Known {
				rep.Unknown = append(rep.Unknown, fmt.Sprintf("%s (line %d)", in.Opcode, in.Line))
			}
		}
	}
	if o.SortByPadding {
		rep.sortByPadding()
	}
	return rep
}

// entryRows lists the entry parameters and results. When the header has an
// entry_computation_layout, its shapes are the ones listed (they are what callers
// pass and get back) and a body shape that differs is kept beside them.
func (rep *HLO) entryRows(m *hlo.Module, newRow func(kind, name string, s layout.Shape) HLORow) {
	el := m.EntryLayout
	params := m.Entry.Parameters()
	if el != nil && len(el.Params) != len(params) {
		rep.HeaderNote = fmt.Sprintf("the entry_computation_layout header lists %s, the entry computation %s has %s",
			Plural(int64(len(el.Params)), "parameter"), m.Entry.Name, Plural(int64(len(params)), "parameter"))
	}
	// add lists the arrays of shape s (the header's when it has one) against body's.
	add := func(kind, name string, number, line int, s layout.Shape, header *layout.Shape, inferred bool) {
		from := "body"
		var bodyArrays map[string]layout.Shape
		body := s
		if header != nil {
			from, bodyArrays = "header", map[string]layout.Shape{}
			FlattenShape(s, nil, func(idx string, b layout.Shape) { bodyArrays[idx] = b })
			s = *header
		}
		emit := func(idx string, e layout.Shape) {
			r := newRow(kind, name, e)
			n := number
			r.Number, r.Index, r.Line, r.From, r.Inferred = &n, idx, line, from, inferred && !r.NotWritten && header == nil
			if kind == "result" {
				n = len(rep.Rows) - rep.params
				r.Number = &n
				var full []int
				if idx != "" {
					for part := range strings.SplitSeq(strings.Trim(idx, "{}"), ",") {
						v, _ := strconv.Atoi(part)
						full = append(full, v)
					}
				}
				r.Index = hlo.Result{Index: full}.IndexString()
			}
			if bodyArrays != nil {
				if b, ok := bodyArrays[idx]; !ok {
					r.Body = "no such element (the body's is " + body.String() + ")"
				} else if b.String() != e.String() {
					r.Body = b.String()
					if b.Kind == layout.Array && b.DType == layout.Invalid {
						r.Body = "shape not written"
					}
				}
			}
			rep.Rows = append(rep.Rows, r)
		}
		FlattenShape(s, nil, emit)
		if kind == "result" && s.Kind == layout.Tuple && len(s.Elements) == 0 {
			emit("", s) // a computation that returns nothing: its row says so
		}
	}
	for i, p := range params {
		n, _ := p.ParameterNumber()
		var header *layout.Shape
		if el != nil && i < len(el.Params) && len(el.Params) == len(params) {
			header = &el.Params[i]
		}
		add("parameter", p.Name, n, p.Line, *p.Shape, header, false)
	}
	rep.params = len(rep.Rows)
	root := m.Entry.Root
	var header *layout.Shape
	if el != nil {
		header = &el.Result
	}
	add("result", root.Name, 0, root.Line, *root.Shape, header, root.Inferred)
}

func (rep *HLO) sortByPadding() {
	slices.SortStableFunc(rep.Rows, func(a, b HLORow) int {
		if a.Expansion != b.Expansion {
			if a.Expansion > b.Expansion {
				return -1
			}
			return 1
		}
		pa, pb := a.Footprint-a.Logical, b.Footprint-b.Logical
		switch {
		case pa > pb:
			return -1
		case pa < pb:
			return 1
		}
		return 0
	})
}
