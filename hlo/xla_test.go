package hlo

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// Modules XLA's parser reads that this package once rejected (issue #26).

func TestParseValueOnNextLine(t *testing.T) {
	m, err := Parse([]byte("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0:T(128)} parameter(0), sharding=\n    {replicated}\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Entry.Root.Attr("sharding"); v != "{replicated}" {
		t.Errorf("sharding = %q", v)
	}
	// An attribute with no value at all is still an error.
	if _, err := Parse([]byte("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0), sharding=\n}\n")); err == nil || !strings.Contains(err.Error(), "missing attribute value") {
		t.Errorf("empty value: %v", err)
	}
}

func TestParseWithoutHeader(t *testing.T) {
	for _, text := range []string{
		"ENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n",
		"e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n",
		"%e {\n  ROOT %p = f32[8]{0} parameter(0)\n}\n",
	} {
		m, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if m.Name != "" || m.HeaderLine || m.Entry.Name != "e" || m.Entry.Root.Name != "p" {
			t.Errorf("%q: module %q header %v entry %s", text, m.Name, m.HeaderLine, m.Entry.Name)
		}
	}
}

func TestParseInferredShapes(t *testing.T) {
	m, err := Parse([]byte(`HloModule m
ENTRY e {
  p = (f32[8]{0:T(128)}, s32[]) parameter(0)
  g = get-tuple-element(p), index=0
  n = negate(g)
  a = add(n, g)
  q = f32[8]{0} parameter(1)
  mixed = add(n, q)
  d = dot(n, n), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  c = compare(n, g), direction=LT
  s = select(c, n, g)
  ROOT t = tuple(a, p, mixed, d, s)
}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"g": "f32[8]{0:T(128)}", "n": "f32[8]{0:T(128)}", "a": "f32[8]{0:T(128)}"}
	for _, in := range m.Entry.Instructions {
		if w, ok := want[in.Name]; ok {
			if !in.Inferred || in.NoShape || in.Shape.String() != w {
				t.Errorf("%s: inferred %v, no shape %v, %s; want %s", in.Name, in.Inferred, in.NoShape, in.Shape, w)
			}
		}
	}
	for _, name := range []string{"mixed", "d", "c", "s", "t"} {
		for _, in := range m.Entry.Instructions {
			if in.Name == name && !in.NoShape {
				t.Errorf("%s: shape %s inferred; want it reported as not written", name, in.Shape)
			}
		}
	}
	rs := m.Results()
	if len(rs) != 1 || !rs[0].NoShape {
		t.Errorf("results %v", rs)
	}
	m, err = Parse([]byte("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT t = tuple(p, f32[2]{0} %p)\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Entry.Root.Shape.String(); got != "(f32[8]{0}, f32[2]{0})" {
		t.Errorf("tuple shape %s", got)
	}
	// XLA does not infer a parameter's or a reshape's shape.
	for _, text := range []string{"ENTRY e {\n  ROOT p = parameter(0)\n}\n", "ENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = reshape(p)\n}\n"} {
		if _, err := Parse([]byte(text)); err == nil || !strings.Contains(err.Error(), "has no shape") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func TestParseEntryLayout(t *testing.T) {
	m, err := Parse([]byte("HloModule m, entry_computation_layout={(f32[784,128]{1,0:T(8,128)}, /*index=1*/(s32[], bf16[4]{0}))->f32[784,128]{0,1:T(8,128)}}\n" +
		"ENTRY e {\n  p = f32[784,128]{1,0} parameter(0)\n  q = (s32[], bf16[4]{0}) parameter(1)\n  ROOT r = f32[784,128]{1,0} negate(p)\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	el := m.EntryLayout
	if el == nil || len(el.Params) != 2 || el.Params[0].String() != "f32[784,128]{1,0:T(8,128)}" ||
		el.Params[1].String() != "(s32[], bf16[4]{0})" || el.Result.String() != "f32[784,128]{0,1:T(8,128)}" {
		t.Fatalf("entry layout %+v", el)
	}
	for _, bad := range []string{"{(f32[8]{0})}", "{f32[8]->f32[8]}", "{(f32[8]{1})->f32[8]}", "(f32[8])->f32[8]"} {
		_, err := Parse([]byte("HloModule m, entry_computation_layout=" + bad + "\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n"))
		if err == nil || !strings.Contains(err.Error(), "entry_computation_layout") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// Operands written as instructions become instructions, named as XLA names them
// (the output of XLA's HloNonRoundtripParserTest cases).
func TestParseNestedInstructions(t *testing.T) {
	m, err := Parse([]byte("HloModule test\n\nENTRY test {\n    ROOT root = add(f32[10] parameter(0), multiply(f32[10] parameter(1), f32[10] parameter(2)))\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range m.Entry.Instructions {
		got = append(got, in.Name+" = "+in.Shape.String()+" "+in.Opcode+"("+strings.Join(in.Operands(), ", ")+")")
	}
	want := []string{
		"parameter.anon = f32[10]{0} parameter(0)",
		"parameter.anon.1 = f32[10]{0} parameter(1)",
		"parameter.anon.2 = f32[10]{0} parameter(2)",
		"multiply.anon = f32[10]{0} multiply(parameter.anon.1, parameter.anon.2)",
		"root = f32[10]{0} add(parameter.anon, multiply.anon)",
	}
	testenv.Lines(t, "instructions", got, want)
	if len(m.Entry.Parameters()) != 3 || m.Entry.Root.Name != "root" {
		t.Errorf("%d parameters, root %s", len(m.Entry.Parameters()), m.Entry.Root.Name)
	}
	m, err = Parse([]byte("HloModule test\n\nENTRY test {\n  ROOT root = get-tuple-element(\n    (f32[10], f16[10]) tuple(f32[10] parameter(0), f16[10] parameter(1))\n  ), index=0\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Entry.Root; r.Shape.String() != "f32[10]{0}" || r.Operands()[0] != "tuple.anon" || len(m.Entry.Instructions) != 4 {
		t.Errorf("root %s = %s %q, %d instructions", r.Name, r.Shape, r.Operands(), len(m.Entry.Instructions))
	}
	// `HloModule name:` as older XLA printed it.
	if m, err := Parse([]byte("HloModule layout:\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n")); err != nil || m.Name != "layout" {
		t.Errorf("%v %v", m, err)
	}
}

// Modules this package read although XLA's parser refuses them (issues #41, #44): each
// is refused with the line and column where XLA's parser stops.
func TestParseRefusesWhatXLARefuses(t *testing.T) {
	for _, c := range []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"parameter number twice", "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  q = f32[8]{0} parameter(0)\n  ROOT a = f32[8]{0} add(p, q)\n}\n",
			4, 3, "parameter q of e has number 0, as p (line 3) has"},
		{"lone parameter 1", "HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(1)\n}\n",
			3, 3, "parameter p of e has number 1, but e has 1 parameters: they are numbered 0 to 0 without gaps"},
		{"gap in a called computation", "HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(2)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n",
			4, 3, "has number 2, but add has 2 parameters"},
		{"text after an attribute", "HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0), sharding={replicated} junk\n}\n",
			3, 58, `unexpected "junk" after the value of attribute sharding`},
		{"undefined operand", "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} copy(nothing)\n}\n",
			4, 27, "operand nothing of c is not defined before it"},
		{"operand with its shape", "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} copy(f32[8]{0} %q)\n}\n",
			4, 37, "operand q of c is not defined before it"},
		{"operand defined later", "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} copy(n)\n  n = f32[8]{0} negate(p)\n}\n",
			4, 27, "operand n of c is not defined before it"},
		{"operand of another computation", "HloModule m\nf {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\nENTRY e {\n  ROOT c = f32[] copy(x)\n}\n",
			7, 23, "operand x of c"},
		{"undefined computation", "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[] reduce(p, p), dimensions={0}, to_apply=%nope\n}\n",
			4, 57, "computation nope, called from e, is not defined before it"},
		{"computation in a list", "HloModule m\nb {\n  ROOT x = f32[] parameter(0)\n}\nENTRY e {\n  p = s32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT c = f32[] conditional(p, q, q), branch_computations={%b, %nope}\n}\n",
			8, 65, "computation nope, called from e"},
		{"headerless signature", "%fused (p: f32[8]) -> f32[8] {\n  ROOT p = f32[8]{0} parameter(0)\n}\n",
			1, 8, "a module without an HloModule line starts with ENTRY or a computation (fused {…})"},
		{"headerless instruction", "%p = f32[8]{0} parameter(0)\n",
			1, 4, "a module without an HloModule line starts with ENTRY"},
		{"sparse physical shape", "HloModule m\nENTRY e {\n  ROOT p = f32[10,10]{1,0:D(D,C)P((s32[10]{0}, f32[10]{0}))} parameter(0)\n}\n",
			3, 33, "physical shape P(…) is the older XLA form"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse([]byte(c.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("module %v, error %v; want a SyntaxError", m, err)
			}
			if se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("%v; want line %d, col %d: %q", err, c.line, c.col, c.msg)
			}
		})
	}
}

// What XLA's parser takes stays read: a called computation defined before its caller,
// operands written as instructions, a computation's parameters in any order.
func TestParseKeepsWhatXLATakes(t *testing.T) {
	m, err := Parse([]byte("HloModule m\nadd {\n  y = f32[] parameter(1)\n  x = f32[] parameter(0)\n  ROOT s = f32[] add(x, y)\n}\n" +
		"ENTRY e {\n  p = f32[8]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=%add  // sum\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Entry.Root.Attr("to_apply"); v != "%add" {
		t.Errorf("to_apply = %q", v)
	}
}

// X-start, X-update and X-done of any opcode X are async wrappers XLA's parser takes.
func TestParseAsyncWrappersKnown(t *testing.T) {
	m, err := Parse([]byte("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n" +
		"  s = ((f32[8]{0}), f32[8]{0}, s32[]) negate-start(p)\n" +
		"  u = ((f32[8]{0}), f32[8]{0}, s32[]) negate-update(s)\n" +
		"  ROOT d = f32[8]{0} negate-done(u)\n  x = f32[8]{0} frobnicate-start(p)\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range m.Entry.Instructions {
		if want := in.Opcode != "frobnicate-start"; in.Known != want {
			t.Errorf("%s: known %v, want %v", in.Opcode, in.Known, want)
		}
	}
}
