package hlo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func mustParseFile(t *testing.T, path string) *Module {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestParseAfterOptimizations(t *testing.T) {
	m := mustParseFile(t, "testdata/train_step.after_optimizations.txt")
	if m.Name != "jit_train_step" || !m.EntryMarked || m.Entry.Name != "main.40" || len(m.Computations) != 4 {
		t.Fatalf("module %s entry %s marked %v, %d computations", m.Name, m.Entry.Name, m.EntryMarked, len(m.Computations))
	}
	if v, _ := m.Attr("num_partitions"); v != "2" {
		t.Errorf("num_partitions = %q", v)
	}
	if v, _ := m.Attr("entry_computation_layout"); !strings.HasPrefix(v, "{(bf16[4096,4096]{1,0:T(8,128)(2,1)}") || !strings.HasSuffix(v, ")}") {
		t.Errorf("entry_computation_layout = %q", v)
	}
	want := []string{
		"bf16[4096,4096]{1,0:T(8,128)(2,1)}", "f32[8,3,1000]{2,1,0:T(4,128)}",
		"bf16[512,3,2048]{2,1,0:T(4,128)(2,1)}", "s32[]{:T(128)}",
		"s8[1024,1000]{1,0:T(32,128)(4,1)}", "f32[1000]{0:T(1024)}",
	}
	ps := m.Entry.Parameters()
	if len(ps) != len(want) {
		t.Fatalf("%d parameters, want %d", len(ps), len(want))
	}
	for i, p := range ps {
		if p.Shape.String() != want[i] {
			t.Errorf("parameter %d = %s, want %s", i, p.Shape, want[i])
		}
	}
	p0 := ps[0]
	if v, _ := p0.Attr("sharding"); v != "{devices=[2,1]0,1}" {
		t.Errorf("sharding = %q", v)
	}
	if v, _ := p0.Attr("frontend_attributes"); v != `{mhlo.sharding="{devices=[2,1]<=[2]}"}` {
		t.Errorf("frontend_attributes = %q", v)
	}
	if p0.Line != 26 {
		t.Errorf("parameter 0 on line %d, want 26", p0.Line)
	}
	rs := m.Results()
	if len(rs) != 7 || rs[5].IndexString() != "{5}" || rs[5].Shape.String() != "f32[1000]{0:T(1024)}" {
		t.Fatalf("results %v", rs)
	}
	// The signature is kept; an attribute value spanning lines is read whole.
	if len(m.Entry.Params) != 6 || m.Entry.Result == nil || len(m.Entry.Result.Elements) != 7 {
		t.Errorf("signature: %d params, result %v", len(m.Entry.Params), m.Entry.Result)
	}
	fc := m.Computations[1]
	if v, _ := fc.Instructions[4].Attr("slice"); v != "{[0:2048], [0:2048]}" {
		t.Errorf("multi-line slice attribute = %q", v)
	}
	if got := fc.Root.Operands(); len(got) != 2 || got[1] != "bf16[2048,2048]{1,0:T(8,128)(2,1)} %slice.5" {
		t.Errorf("operands %q", got)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if !in.Known {
				t.Errorf("%s: opcode %s not known", in.Name, in.Opcode)
			}
		}
	}
	cs := m.Entry.Instructions[8] // copy-start: a tuple with a memory space
	if cs.Opcode != "copy-start" || cs.Shape.Elements[0].Layout.MemorySpace != 1 {
		t.Errorf("copy-start shape %s", cs.Shape)
	}
}

func TestParseBeforeOptimizations(t *testing.T) {
	m := mustParseFile(t, "testdata/train_step.before_optimizations.txt")
	if m.Entry.Name != "main.40" || m.Entry.Params != nil || len(m.Entry.Parameters()) != 6 {
		t.Fatalf("entry %s, %d parameters", m.Entry.Name, len(m.Entry.Parameters()))
	}
	if m.Entry.Root.Name != "tuple.17" || len(m.Results()) != 2 {
		t.Errorf("root %s, results %v", m.Entry.Root.Name, m.Results())
	}
}

func TestParseNoEntryTakesLast(t *testing.T) {
	m, err := Parse([]byte("HloModule m\n\nadd {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n\nmain {\n  p = f32[8]{0} parameter(0)\n  n = f32[8]{0} negate(p)\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.EntryMarked || m.Entry.Name != "main" || m.Entry.Root.Name != "n" {
		t.Errorf("entry %s (marked %v), root %s", m.Entry.Name, m.EntryMarked, m.Entry.Root.Name)
	}
}

func TestParseStackFrameTables(t *testing.T) {
	tables := "FileNames\n1 \"/home/user/f.py\"\n2 \"/usr/lib/jax/api.py\"\n\nFunctionNames\n1 \"f\"\n\n" +
		"FileLocations\n1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=2 end_column=9}\n\n" +
		"StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n"
	comp := "%add {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n\n" +
		"ENTRY %e {\n  ROOT p = f32[8]{0} parameter(0), metadata={op_name=\"x\" stack_frame_id=1}\n}\n"
	// Between the header and the computations, as XLA prints them, or at the end.
	for _, text := range []string{"HloModule m, is_scheduled=true\n\n" + tables + comp, "HloModule m\n" + comp + "\n" + tables} {
		m, err := Parse([]byte(text))
		if err != nil || len(m.Computations) != 2 || m.Entry.Root.Name != "p" {
			t.Fatalf("%v, %v\n%s", m, err, text)
		}
	}
	// A computation may still be named like a table when a '{' follows.
	m, err := Parse([]byte("HloModule m\nStackFrames {\n  ROOT p = f32[8]{0} parameter(0)\n}\n"))
	if err != nil || m.Entry.Name != "StackFrames" {
		t.Fatalf("%v, %v", m, err)
	}
}

func TestParseUnknownOpcode(t *testing.T) {
	m, err := Parse([]byte("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT q = f32[8]{0} frobnicate(p), mystery={1}\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Entry.Root
	if r.Known || r.Opcode != "frobnicate" || r.Line != 4 || r.Shape.String() != "f32[8]{0}" {
		t.Errorf("root %+v", r)
	}
}

func TestParseErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/train_step.after_optimizations.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in string
		line     int
		msg      string
	}{
		{"empty", "", 1, "expected 'HloModule name'"},
		{"not hlo", "\x93NUMPY\x01\x00", 1, "expected 'HloModule name'"},
		{"no name", "HloModule\n", 2, "module name"},
		{"no computations", "HloModule m, is_scheduled=true\n", 2, "no computations"},
		{"truncated mid-file", string(good[:len(good)*2/3]), 0, "truncated?"},
		{"truncated in header", string(good[:200]), 1, "truncated?"},
		{"truncated after name", "HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT q = f32[8]{0} negate(p)\n", 2, "computation e is never closed"},
		{"two entries", "HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n", 5, "second ENTRY"},
		{"two roots", "HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n  ROOT q = f32[] negate(p)\n}\n", 4, "second ROOT"},
		{"duplicate name", "HloModule m\nENTRY a {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}\n", 4, "defined twice"},
		{"missing =", "HloModule m\nENTRY a {\n  p f32[] parameter(0)\n}\n", 3, "expected '=' after instruction name p"},
		{"bad shape", "HloModule m\nENTRY a {\n  p = f32[8,8]{1,1} parameter(0)\n}\n", 3, "bad shape"},
		{"bad dtype", "HloModule m\nENTRY a {\n  p = float[8] parameter(0)\n}\n", 3, "unknown primitive type"},
		{"no opcode", "HloModule m\nENTRY a {\n  p = f32[8]{0}\n}\n", 4, "expected the opcode of p"},
		{"no operands", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter\n}\n", 4, "expected '(' after opcode parameter"},
		{"bad parameter", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter(x)\n}\n", 3, "parameter p needs one non-negative number"},
		{"unbalanced", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter(0), metadata={op_name=\"x\")\n}\n", 3, "unbalanced"},
		{"unterminated string", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter(0), metadata={op_name=\"x}\n}\n", 3, "string is never closed"},
		{"attr without =", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter(0), sharding\n}\n", 4, "expected '=' after attribute sharding"},
		{"empty computation", "HloModule m\nENTRY a {\n}\n", 2, "has no instructions"},
		{"bad signature", "HloModule m\nENTRY a (p: f32[8]) f32[8] {\n  ROOT p = f32[8]{0} parameter(0)\n}\n", 2, "expected '->'"},
		{"deep nesting", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter(0), x=" + strings.Repeat("(", 2000) + "\n}\n", 3, "nested more than"},
		{"garbage line", "HloModule m\nENTRY a {\n  p = f32[8]{0} parameter(0)\n  !!!\n}\n", 4, "expected an instruction name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse([]byte(c.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got module %v, err %v; want a SyntaxError", m, err)
			}
			if !strings.Contains(se.Msg, c.msg) || c.line != 0 && se.Line != c.line {
				t.Errorf("error %q; want line %d and %q", err, c.line, c.msg)
			}
		})
	}
}

func TestParseInstruction(t *testing.T) {
	in, err := ParseInstruction(`%p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), sharding={devices=[2,1]0,1}, metadata={op_name="x" source_line=3}, frontend_attributes={a="b"}`)
	if err != nil {
		t.Fatal(err)
	}
	if in.Name != "p0" || in.Shape.String() != "bf16[8,128]{1,0:T(8,128)(2,1)}" {
		t.Errorf("%s = %s", in.Name, in.Shape)
	}
	in, err = ParseInstruction(`ROOT %tuple.39 = (f32[8]{0}, s32[]{:T(128)}, /*index=2*/bf16[8,128]{1,0:T(8,128)(2,1)}) tuple(%a, %b, /*index=2*/%c)`)
	if err != nil {
		t.Fatal(err)
	}
	if !in.Root || len(in.Shape.Elements) != 3 || len(in.Operands()) != 3 || in.Operands()[2] != "%c" {
		t.Errorf("root %v, shape %s, operands %q", in.Root, in.Shape, in.Operands())
	}
	e, err := Element(*in.Shape, []int{2})
	if err != nil || e.String() != "bf16[8,128]{1,0:T(8,128)(2,1)}" {
		t.Errorf("element 2 = %s, %v", e, err)
	}
	if _, err := Element(*in.Shape, []int{3}); err == nil || !strings.Contains(err.Error(), "has 3 elements") {
		t.Errorf("element 3: %v", err)
	}
	if _, err := Element(*in.Shape, []int{0, 0}); err == nil || !strings.Contains(err.Error(), "not a tuple") {
		t.Errorf("element 0,0: %v", err)
	}
	for _, bad := range []string{"", "f32[8]", "%p = f32[8] parameter(0) extra", "%p = parameter(0)"} {
		if _, err := ParseInstruction(bad); err == nil {
			t.Errorf("ParseInstruction(%q) succeeded", bad)
		}
	}
}

func TestParseScanDump(t *testing.T) {
	m := mustParseFile(t, "testdata/scan.after_optimizations.txt")
	if len(m.Computations) != 3 || m.Entry.Name != "main.20" {
		t.Fatalf("%d computations, entry %s", len(m.Computations), m.Entry.Name)
	}
	p, err := m.Parameter(0)
	if err != nil || p.Shape.Kind != layout.Tuple || len(p.Shape.Elements) != 3 {
		t.Fatalf("parameter 0: %v %v", p, err)
	}
	if v, _ := p.Attr("sharding"); v != "{{maximal device=0}, {replicated}, {replicated}}" {
		t.Errorf("sharding %q", v)
	}
	w := m.Entry.Instructions[5]
	if v, _ := w.Attr("backend_config"); w.Opcode != "while" || !strings.Contains(v, `"known_trip_count":{"n":"8"}`) {
		t.Errorf("while %s backend_config %q", w.Opcode, v)
	}
	if _, err := m.Parameter(2); err == nil || !strings.Contains(err.Error(), "no parameter 2 (it has 2)") {
		t.Errorf("parameter 2: %v", err)
	}
}

// TestLayoutErrorWords: a shape that package layout refuses is quoted by its parse
// error's fields (input, byte, what is wrong), without layout's "layout: " prefix
// where the message quotes it alone.
func TestLayoutErrorWords(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"HloModule m, entry_computation_layout={(f33[2])->f32[2]}\n\nENTRY e {\n ROOT p = f32[2] parameter(0)\n}\n",
			`hlo: line 1, col 39: entry_computation_layout: parameters: layout: parse "(f33[2])": at byte 1: unknown primitive type "f33" (type names are lower case, e.g. f32, bf16)`},
		{"HloModule m\n\ne (x: f33[2]) -> f32[2] {\n ROOT p = f32[2] parameter(0)\n}\n",
			`hlo: line 3, col 3: parameter x of e: parse "f33[2]": at byte 0: unknown primitive type "f33" (type names are lower case, e.g. f32, bf16)`},
		{"HloModule m\n\nENTRY e {\n ROOT p = f32[2]{1,0} parameter(0)\n}\n",
			`hlo: line 4, col 17: bad shape f32[2]{1,0}: dimensions size is 1, but minor to major size is 2`},
	} {
		_, err := ParseString(c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseString(%q):\n got %v\nwant %s", c.text, err, c.want)
		}
	}
}

// FuzzParse feeds arbitrary text to the reader: it must return a module or a
// SyntaxError whose position lies in the input, never panic, and a module it returns
// must have an entry computation with a root.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	corpus, _ := filepath.Glob("../testdata/hlo/*.hlo") // real modules from XLA's tests
	files = append(files, corpus...)
	if len(corpus) < 100 {
		f.Fatalf("%d modules in ../testdata/hlo, want the corpus of at least 100", len(corpus))
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("HloModule m\nENTRY e {\n  ROOT p = (f32[], /*index=1*/s32[]{:T(128)}) parameter(0)\n}\n"))
	f.Add([]byte("HloModule m\nc {\n  p = f32[] parameter(0), x=\"\\\"}\"\n}\n"))
	// What XLA refuses (TestParseRefusesWhatXLARefuses).
	for _, seed := range []string{
		"HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  q = f32[8]{0} parameter(0)\n  ROOT a = f32[8]{0} add(p, q)\n}\n",
		"HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(1)\n}\n",
		"HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0), sharding={replicated} junk\n}\n",
		"HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} copy(nothing)\n}\n",
		"HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT r = f32[] reduce(p, p), dimensions={0}, to_apply=%nope\n}\n",
		"%fused (p: f32[8]) -> f32[8] {\n  ROOT p = f32[8]{0} parameter(0)\n}\n",
		"HloModule m\nENTRY e {\n  ROOT p = f32[10,10]{1,0:D(D,C)P((s32[10]{0}, f32[10]{0}))} parameter(0)\n}\n",
		"HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT d = f32[8]{0} negate-done(((f32[8]{0}), f32[8]{0}) negate-start(p))\n}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Parse(in)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("Parse: bad error %v", err)
			}
			return
		}
		if m.Entry == nil || m.Entry.Root == nil {
			t.Fatalf("module without entry or root")
		}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				// A shape is written, inferred, or marked as neither; never left empty.
				empty := in.Shape.Kind == layout.Array && in.Shape.DType == layout.Invalid
				if in.NoShape && (!in.Inferred || !empty) || !in.NoShape && empty {
					t.Fatalf("%s: inferred %v, no shape %v, shape %s", in.Name, in.Inferred, in.NoShape, in.Shape)
				}
				// The attributes' text kept reads again whole, as Attrs reads it.
				s := scanner{in: in.attrs}
				if _, err := s.attrs(true); err != nil || s.pos != len(in.attrs) {
					t.Fatalf("%s: attributes %q read again: %v at byte %d", in.Name, in.attrs, err, s.pos)
				}
				_ = in.Operands()
			}
		}
		_ = m.Results()
		for _, p := range m.Entry.Parameters() {
			_ = p.Shape.String()
		}
	})
}

// FuzzParseInstruction: a pasted line gives an instruction or a SyntaxError, never a
// panic.
func FuzzParseInstruction(f *testing.F) {
	f.Add(`%p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), sharding={devices=[2,1]0,1}, metadata={op_name="x"}`)
	f.Add(`ROOT %t = (f32[8]{0}, /*index=1*/s32[]{:T(128)}) tuple(%a, %b), frontend_attributes={a="b"}`)
	f.Add(`%c = f32[] constant(1), backend_config="{\"x\":1}"`)
	f.Fuzz(func(t *testing.T, in string) {
		ins, err := ParseInstruction(in)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("ParseInstruction(%q): bad error %v", in, err)
			}
			return
		}
		if ins.Name == "" || ins.Opcode == "" {
			t.Fatalf("ParseInstruction(%q) = %+v", in, ins)
		}
	})
}
