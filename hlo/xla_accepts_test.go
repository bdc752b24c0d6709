package hlo

import (
	"strings"
	"testing"
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
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
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
