package hlo

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestNameSet checks the table of names defined so far through a computation long
// enough to grow it many times: every operand naming an earlier instruction is
// taken, a name defined twice is refused with the line of its first definition, and
// a name never defined is refused, also for names the parser gives (`negate.anon`).
func TestNameSet(t *testing.T) {
	const n = 3000
	body := func(extra string) string {
		var b strings.Builder
		b.WriteString("HloModule m\nENTRY e {\n  %v0 = f32[8]{0} parameter(0)\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "  %%v%d = f32[8]{0} add(%%v%d, v%d)\n", i, i-1, (i*7919)%i)
		}
		b.WriteString("  t = f32[8]{0} add(f32[8]{0} negate(v5), negate.anon)\n")
		b.WriteString(extra)
		b.WriteString("  ROOT r = f32[8]{0} copy(v" + fmt.Sprint(n-1) + ")\n}\n")
		return b.String()
	}
	m, err := ParseString(body(""))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Entry.Instructions); got != n+3 {
		t.Errorf("%d instructions, want %d", got, n+3)
	}
	for _, c := range []struct{ extra, want string }{
		// v1234 is defined on line 3+1234.
		{"  ROOT v1234 = f32[8]{0} copy(v1)\n", "instruction v1234 is defined twice in e (first on line 1237)"},
		{"  negate.anon = f32[8]{0} copy(v1)\n", "instruction negate.anon is defined twice in e (first on line 3003)"},
		{"  x = f32[8]{0} copy(v3000)\n", "operand v3000 of x is not defined before it"},
		{"  x = f32[8]{0} copy(negate.anon.1)\n", "operand negate.anon.1 of x is not defined before it"},
	} {
		_, err := ParseString(body(c.extra))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("with %q: %v, want %q", c.extra, err, c.want)
		}
	}
}

// TestOperandsAndAttrs checks that operands and attributes read from the text kept for
// them come out as written, comments dropped, with an operand written as an
// instruction replaced by its name.
func TestOperandsAndAttrs(t *testing.T) {
	m, err := ParseString(`HloModule m
ENTRY e {
  p = f32[8]{0} parameter(0)
  q = f32[8]{0} parameter(1), sharding=
    {replicated} /* c */, metadata={op_name="a,b"}
  s = f32[8]{0} add(/* x, */ f32[8]{0} %p, q /* y */), frontend_attributes={k="v"}
  ROOT t = (f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(p, f32[8]{0} negate(f32[8]{0} copy(q)), /*z*/ s)
}
`)
	if err != nil {
		t.Fatal(err)
	}
	ins := m.Entry.Instructions
	for _, c := range []struct {
		in    *Instruction
		ops   []string
		attrs []Attr
	}{
		{ins[0], []string{"0"}, nil},
		{ins[1], []string{"1"}, []Attr{{"sharding", "{replicated}"}, {"metadata", `{op_name="a,b"}`}}},
		{ins[2], []string{"f32[8]{0} %p", "q"}, []Attr{{"frontend_attributes", `{k="v"}`}}},
		{ins[3], []string{"q"}, nil},
		{ins[4], []string{"copy.anon"}, nil},
		{ins[5], []string{"p", "negate.anon", "s"}, nil},
	} {
		if got := c.in.Operands(); !slices.Equal(got, c.ops) {
			t.Errorf("%s: operands %q, want %q", c.in.Name, got, c.ops)
		}
		if got := c.in.Attrs(); !slices.Equal(got, c.attrs) {
			t.Errorf("%s: attributes %q, want %q", c.in.Name, got, c.attrs)
		}
	}
	if v, ok := ins[1].Attr("metadata"); !ok || v != `{op_name="a,b"}` {
		t.Errorf("metadata %q %v", v, ok)
	}
	if n, ok := ins[1].ParameterNumber(); !ok || n != 1 {
		t.Errorf("parameter number %d %v", n, ok)
	}
}
