package hlo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// Module is a parsed HLO module.
type Module struct {
	// Name is the name on the `HloModule name` line; "" when the text has none.
	Name string
	// HeaderLine reports whether the text starts with an `HloModule name` line.
	HeaderLine bool
	// Attrs are the header's `key=value` attributes in order, values as written.
	Attrs        []Attr
	Computations []*Computation
	// Entry is the ENTRY computation, or the last one when none is marked.
	Entry *Computation
	// EntryMarked reports whether a computation was marked ENTRY.
	EntryMarked bool
	// EntryLayout is the header's entry_computation_layout={(…)->…}, nil when absent.
	EntryLayout *EntryLayout
}

// EntryLayout is the header's entry_computation_layout: the layouts the entry
// computation's parameters and result have for its callers, which a module written
// before layout assignment holds while its body is still untiled.
type EntryLayout struct {
	Params []layout.Shape
	Result layout.Shape
}

// Attr is one `name=value` attribute; Value is the raw text.
type Attr struct {
	Name, Value string
}

// Computation is one computation of a module.
type Computation struct {
	Name  string
	Entry bool
	Line  int
	// Params and Result come from the signature `(p: shape, …) -> shape`, when printed.
	Params       []Param
	Result       *layout.Shape
	Instructions []*Instruction
	// Root is the instruction marked ROOT, or the last one when none is marked.
	Root *Instruction
}

// Param is one parameter of a computation's signature.
type Param struct {
	Name  string
	Shape layout.Shape
}

// Instruction is one HLO instruction.
type Instruction struct {
	Name string // without the leading '%'
	// Shape is never nil. Instructions written with the same shape text share one
	// Shape (and the Shape its slices), so a caller changes it only after cloning it.
	Shape  *layout.Shape
	Opcode string
	Line   int
	// ops is the text between the operands' parentheses, as written (sharing the
	// module's text), or, when an operand was written as an instruction, the operand
	// texts joined by ", " with that operand replaced by its name; attrs is the text of
	// the attributes (`, name=value, …`) after them. [Instruction.Operands] and
	// [Instruction.Attrs] split them on demand, so a module keeps no list per
	// instruction.
	ops, attrs string
	pos        int  // byte offset in the text where it starts, for errors
	Root       bool // marked ROOT
	// Known reports whether Opcode is one XLA defines.
	Known bool
	// Inferred reports that the text wrote no shape (`ROOT t = tuple(p)`): Shape is
	// then the one XLA's parser infers, worked out from the operands' shapes.
	Inferred bool
	// NoShape reports an unwritten shape this package does not infer (the opcode needs
	// semantics it does not model, such as dot or reduce, or an operand's shape is
	// unknown); Shape then points to a zero Shape.
	NoShape bool
}

// Operands returns the operand texts as written, comments dropped, such as
// "bf16[8]{0} %p0" or "p0" (for parameter, the number; for constant, the literal); an
// operand written as an instruction is that instruction's name (`parameter.anon`).
// Each call returns a new slice.
func (in *Instruction) Operands() []string { return splitTop(in.ops) }

// Attrs returns the instruction's `name=value` attributes in order, values as
// written. Each call returns a new slice.
func (in *Instruction) Attrs() []Attr {
	s := scanner{in: in.attrs}
	as, _ := s.attrs(true) // read once already: it cannot fail
	return as
}

// Attr returns the value of the attribute name, and whether it is present.
func (in *Instruction) Attr(name string) (string, bool) { return findAttr(in.Attrs(), name) }

// Attr returns the value of the header attribute name, and whether it is present.
func (m *Module) Attr(name string) (string, bool) { return findAttr(m.Attrs, name) }

func findAttr(as []Attr, name string) (string, bool) {
	for _, a := range as {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// ParameterNumber returns N for a `parameter(N)` instruction.
func (in *Instruction) ParameterNumber() (int, bool) {
	if in.Opcode != "parameter" {
		return 0, false
	}
	ops := in.Operands()
	if len(ops) != 1 {
		return 0, false
	}
	n, err := strconv.Atoi(ops[0])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// Parameters returns the computation's parameter instructions ordered by number.
func (c *Computation) Parameters() []*Instruction {
	var ps []*Instruction
	for _, in := range c.Instructions {
		if _, ok := in.ParameterNumber(); ok {
			ps = append(ps, in)
		}
	}
	slices.SortStableFunc(ps, func(a, b *Instruction) int {
		x, _ := a.ParameterNumber()
		y, _ := b.ParameterNumber()
		return x - y
	})
	return ps
}

// Parameter returns the entry computation's parameter number n.
func (m *Module) Parameter(n int) (*Instruction, error) {
	ps := m.Entry.Parameters()
	for _, p := range ps {
		if k, _ := p.ParameterNumber(); k == n {
			return p, nil
		}
	}
	return nil, fmt.Errorf("hlo: entry computation %s has no parameter %d (it has %d)", m.Entry.Name, n, len(ps))
}

// Result is one array the entry computation returns: the root's shape, or each
// element of a tuple root (nested tuples flattened), with its shape index.
type Result struct {
	Index []int
	Shape layout.Shape
	// NoShape reports a root whose shape is neither written nor inferred.
	NoShape bool
}

// IndexString prints the shape index as "{1,0}", or "{}" for the root itself.
func (r Result) IndexString() string {
	parts := make([]string, len(r.Index))
	for i, v := range r.Index {
		parts[i] = strconv.Itoa(v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Results flattens the entry root's shape into its arrays.
func (m *Module) Results() []Result {
	var out []Result
	var walk func(s layout.Shape, idx []int)
	walk = func(s layout.Shape, idx []int) {
		if s.Kind == layout.Tuple {
			for i, e := range s.Elements {
				walk(e, append(slices.Clone(idx), i))
			}
			return
		}
		out = append(out, Result{Index: idx, Shape: s})
	}
	if m.Entry.Root.NoShape {
		return []Result{{Index: []int{}, NoShape: true}}
	}
	walk(*m.Entry.Root.Shape, []int{})
	return out
}

// Element returns the element of tuple shape s at the shape index idx (nested tuples
// take several numbers); an empty index returns s.
func Element(s layout.Shape, idx []int) (layout.Shape, error) {
	for depth, i := range idx {
		if s.Kind != layout.Tuple {
			return layout.Shape{}, fmt.Errorf("hlo: shape index {%s}: %s at depth %d is not a tuple", joinIndex(idx), s, depth)
		}
		if i < 0 || i >= len(s.Elements) {
			return layout.Shape{}, fmt.Errorf("hlo: shape index {%s}: the tuple at depth %d has %d elements", joinIndex(idx), depth, len(s.Elements))
		}
		s = s.Elements[i]
	}
	return s, nil
}

func joinIndex(idx []int) string {
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

// isKnownOpcode reports whether XLA's parser takes op: an opcode of HLO_OPCODE_LIST, or
// an async wrapper `X-start`, `X-update` or `X-done` of one (ParseOpcode reads those as
// async-start, async-update and async-done wrapping X).
func isKnownOpcode(op string) bool {
	if knownOpcodes[op] {
		return true
	}
	for _, suffix := range []string{"-start", "-update", "-done"} {
		if x, ok := strings.CutSuffix(op, suffix); ok && knownOpcodes[x] {
			return true
		}
	}
	return false
}

// knownOpcodes are the opcode names of XLA's HLO_OPCODE_LIST (hlo_opcode.h).
var knownOpcodes = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`abs add add-dependency after-all all-gather all-gather-start
	all-gather-done all-reduce all-reduce-start all-reduce-done all-to-all ragged-all-to-all
	async-start async-update async-done atan2 batch-norm-grad batch-norm-inference
	batch-norm-training bitcast bitcast-convert broadcast call cbrt ceil cholesky clamp
	collective-broadcast collective-permute collective-permute-start collective-permute-done
	count-leading-zeros compare complex concatenate conditional constant convert convolution
	copy copy-done copy-start cosine custom-call divide domain dot dynamic-reshape
	dynamic-slice dynamic-update-slice erf exponential exponential-minus-one fft floor fusion
	gather get-dimension-size set-dimension-size get-tuple-element imag infeed iota is-finite
	log log-plus-one logistic and not opt-barrier or xor map maximum minimum multiply negate
	outfeed pad parameter partition-id popcnt power real recv recv-done reduce
	reduce-precision reduce-scatter reduce-window remainder replica-id reshape reverse rng
	rng-get-and-update-state rng-bit-generator round-nearest-afz round-nearest-even rsqrt
	scatter select select-and-scatter send send-done shift-left shift-right-arithmetic
	shift-right-logical sign sine slice sort sqrt stochastic-convert subtract tan tanh topk
	transpose triangular-solve tuple while`) {
		m[s] = true
	}
	return m
}()

// parseEntryLayout reads the value of entry_computation_layout: `{(p0, p1, …)->result}`.
func parseEntryLayout(v string) (*EntryLayout, error) {
	body, ok := strings.CutPrefix(strings.TrimSpace(v), "{")
	if body, ok = strings.CutSuffix(body, "}"); !ok {
		return nil, fmt.Errorf("want {(parameter shapes)->result shape}, found %s", layout.Quote(v))
	}
	depth := 0
	for i := 0; i < len(body)-1; i++ {
		switch body[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '-':
			if depth != 0 || body[i+1] != '>' {
				continue
			}
			params, err := layout.Parse(strings.TrimSpace(body[:i]))
			if err != nil {
				return nil, fmt.Errorf("parameters: %w", err)
			}
			if params.Kind != layout.Tuple {
				return nil, fmt.Errorf("want the parameters in parentheses, found %s", layout.Quote(body[:i]))
			}
			res, err := layout.Parse(strings.TrimSpace(body[i+2:]))
			if err != nil {
				return nil, fmt.Errorf("result: %w", err)
			}
			return &EntryLayout{Params: params.Elements, Result: res}, nil
		}
	}
	return nil, fmt.Errorf("no '->' between the parameters and the result in %s", layout.Quote(v))
}
