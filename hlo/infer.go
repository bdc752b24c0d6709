package hlo

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// inferable holds the opcodes whose shape XLA's parser infers when the text leaves it
// out (CanInferShape in xla/hlo/parser/hlo_parser.cc); any other opcode must write it.
var inferable = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`abs add add-dependency after-all atan2 batch-norm-grad
	batch-norm-inference batch-norm-training broadcast call ceil cholesky clamp
	count-leading-zeros compare complex concatenate conditional convolution copy cosine
	opt-barrier divide domain dot erf exponential exponential-minus-one fft floor gather
	get-dimension-size set-dimension-size get-tuple-element imag is-finite log log-plus-one
	logistic and not or xor map maximum minimum multiply negate pad partition-id popcnt
	power ragged-dot real reduce remainder replica-id reverse round-nearest-afz
	round-nearest-even rsqrt scatter select shift-left shift-right-arithmetic
	shift-right-logical sign sine sqrt cbrt reduce-window select-and-scatter sort subtract
	tan tanh transpose triangular-solve tuple while topk`) {
		m[s] = true
	}
	return m
}()

// sameShape are the opcodes whose result has the shape of every operand: unary and
// binary elementwise ops that keep the element type (XLA requires the operands of a
// binary one to agree). Ops that change the type (compare, is-finite, real, imag) or
// the dims are left unknown rather than guessed.
var sameShape = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`abs ceil cbrt copy cosine erf exponential
	exponential-minus-one floor log log-plus-one logistic negate not popcnt
	count-leading-zeros round-nearest-afz round-nearest-even rsqrt sign sine sqrt tan tanh
	add subtract multiply divide maximum minimum power remainder and or xor shift-left
	shift-right-arithmetic shift-right-logical atan2 opt-barrier`) {
		m[s] = true
	}
	return m
}()

// inferShapes fills in the shapes of the instructions written without one, in file
// order, where the result follows from the operands' shapes alone; the rest are marked
// NoShape.
func (c *Computation) inferShapes() {
	// known holds the instructions whose shape is settled: written ones from the
	// start, inferred ones once inferred (a later one is not yet).
	if !slices.ContainsFunc(c.Instructions, func(in *Instruction) bool { return in.Inferred }) {
		return
	}
	known := map[string]*Instruction{}
	for _, in := range c.Instructions {
		if !in.Inferred {
			known[in.Name] = in
		}
	}
	for _, in := range c.Instructions {
		if !in.Inferred {
			continue
		}
		if sh, ok := infer(in, known); ok {
			in.Shape = &sh
			known[in.Name] = in
		} else {
			in.NoShape = true
		}
	}
}

// operandShape is the shape of an operand as written: "f32[8]{0} %p" carries its own,
// "%p" or "p" names an instruction whose shape is known.
func operandShape(text string, byName map[string]*Instruction) (layout.Shape, bool) {
	text = strings.TrimSpace(text)
	if i := strings.LastIndexAny(text, " \t\r\n"); i >= 0 {
		sh, err := layout.Parse(strings.TrimSpace(text[:i]))
		return sh, err == nil
	}
	in := byName[strings.TrimPrefix(text, "%")]
	if in == nil {
		return layout.Shape{}, false
	}
	return *in.Shape, true
}

func infer(in *Instruction, byName map[string]*Instruction) (layout.Shape, bool) {
	texts := in.Operands()
	ops := make([]layout.Shape, len(texts))
	for i, o := range texts {
		sh, ok := operandShape(o, byName)
		if !ok {
			return layout.Shape{}, false
		}
		ops[i] = sh
	}
	switch {
	case in.Opcode == "tuple":
		return layout.Shape{Kind: layout.Tuple, Elements: ops}, true
	case in.Opcode == "get-tuple-element":
		v, _ := in.Attr("index")
		n, err := strconv.Atoi(v)
		if len(ops) != 1 || err != nil {
			return layout.Shape{}, false
		}
		e, err := Element(ops[0], []int{n})
		return e, err == nil
	case in.Opcode == "after-all":
		return layout.Shape{Kind: layout.TokenKind}, true
	case in.Opcode == "partition-id" || in.Opcode == "replica-id":
		return layout.Shape{DType: layout.U32, Dims: []int64{}}, true
	case in.Opcode == "add-dependency" && len(ops) == 2:
		return ops[0], true
	case in.Opcode == "clamp" && len(ops) == 3: // clamp(min, x, max) has x's shape
		return ops[1], true
	case in.Opcode == "select" && len(ops) == 3 && ops[1].String() == ops[2].String():
		return ops[1], true
	case sameShape[in.Opcode] && len(ops) > 0:
		for _, o := range ops[1:] {
			if o.String() != ops[0].String() {
				return layout.Shape{}, false // XLA's choice of layout is not modelled
			}
		}
		return ops[0], true
	}
	return layout.Shape{}, false
}
