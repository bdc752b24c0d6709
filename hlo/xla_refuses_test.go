package hlo

import (
	"errors"
	"strings"
	"testing"
)

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
