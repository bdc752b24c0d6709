package hlo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

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
