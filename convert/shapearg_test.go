package convert_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// writeModule writes an HLO module whose entry takes a tuple and a bf16 array and
// returns a tuple of both arrays.
func writeModule(t *testing.T, dir string) string {
	t.Helper()
	return testfiles.WriteFile(t, dir, "m.txt", []byte(`HloModule m

ENTRY %main (p: (f32[2,3], s8[4]), q: bf16[8,128]) -> (f32[2,3], bf16[8,128]) {
  %p = (f32[2,3]{1,0}, s8[4]{0}) parameter(0)
  %q = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(1)
  %a = f32[2,3]{1,0} get-tuple-element(%p), index=0
  ROOT %r = (f32[2,3]{1,0}, bf16[8,128]{1,0:T(8,128)(2,1)}) tuple(%a, %q)
}
`))
}

// TestParseShape: each form a shape argument takes, and what is refused, with the kind
// of error.
func TestParseShape(t *testing.T) {
	dir := t.TempDir()
	mod := writeModule(t, dir)
	bad := testfiles.WriteFile(t, dir, "bad.txt", []byte("HloModule m\nENTRY {\n"))
	ten := "(" + strings.TrimSuffix(strings.Repeat("f32[1], ", 10), ", ") + ")"
	for _, c := range []struct{ text, want string }{
		{"f32[2,3]", "f32[2,3]{1,0}"},
		{"(f32[2])", "f32[2]{0}"},
		{"(f32[2], s8[3]{0}) {1}", "s8[3]{0}"},
		{"(f32[2], s8[3]{0}) { 1 }", "s8[3]{0}"},
		{"((f32[2], s8[3]), u8[4]) {0,1}", "s8[3]{0}"},
		{"ROOT %p = bf16[20,300]{1,0} parameter(0)", "bf16[20,300]{1,0}"},
		{"%t = (f32[2], s8[3]) parameter(0) {1}", "s8[3]{0}"},
		{"hlo:" + mod + ":param=1", "bf16[8,128]{1,0:T(8,128)(2,1)}"},
		{"hlo:" + mod + ":param=0 {1}", "s8[4]{0}"},
		{"hlo:" + mod + ":result=1", "bf16[8,128]{1,0:T(8,128)(2,1)}"},
	} {
		if sh, err := convert.ParseShape(c.text); err != nil || sh.String() != c.want {
			t.Errorf("%q: %v, %v; want %s", c.text, sh, err, c.want)
		}
	}
	const untyped = convert.Kind(-1) // an error that is not a *convert.Error
	for _, c := range []struct {
		text string
		want string // a part of the error
		kind convert.Kind
	}{
		{"(f32[2], s8[3])", "it is a tuple of 2 elements, not an array; append the index of one, such as ' {0}' ({0} f32[2]{0}, {1} s8[3]{0})", untyped},
		{ten, "{7} f32[1]{0}, …)", untyped},
		{"((f32[2], s8[3]), u8[4]) {0}", "it is a tuple of 2 elements", untyped},
		{"(f32[2], s8[3]) {5}", "5", untyped},
		{"(f32[2], s8[3]) {99999999999999999999}", "", untyped},
		{"%x = f32[2] bogus(", "bad HLO instruction", untyped},
		{"hlo:" + mod, "write hlo:MODULE.txt:param=N", convert.Setting},
		{"hlo:" + mod + ":param=99999999999999999999", "param 99999999999999999999 is out of range", convert.Setting},
		{"hlo:" + mod + ":param=2", "m.txt", untyped},
		{"hlo:" + mod + ":result=2", "has 2 results, so no result 2", untyped},
		{"hlo:" + filepath.Join(dir, "none.txt") + ":param=0", "cannot read MODULE " + filepath.Join(dir, "none.txt"), convert.Input},
		{"hlo:" + bad + ":param=0", bad + ": ", convert.Input},
	} {
		sh, err := convert.ParseShape(c.text)
		if err == nil {
			t.Errorf("%q: %v, want an error with %q", c.text, sh, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q, want %q in it", c.text, err, c.want)
		}
		var e *convert.Error
		if c.kind != untyped && (!errors.As(err, &e) || e.Kind != c.kind) {
			t.Errorf("%q: error %#v, want a convert.Error of kind %v", c.text, err, c.kind)
		}
	}
}

// A plain shape's parse error is layout's, with the byte it went wrong at.
func TestParseShapeError(t *testing.T) {
	_, err := convert.ParseShape("f32[2,3]{1,0")
	var pe *layout.ParseError
	if !errors.As(err, &pe) || pe.Input != "f32[2,3]{1,0" || pe.Pos != 12 {
		t.Errorf("%#v: want a *layout.ParseError at byte 12", err)
	}
	_, err = convert.CompileShape("f32[2,3]{1,0")
	var ce *convert.Error
	if !errors.As(err, &ce) || ce.Kind != convert.Input || !strings.Contains(ce.Error(), "at byte 12") {
		t.Errorf("CompileShape: %#v", err)
	}
	_, err = convert.CompileShape("(f32[2], f32[3])")
	if !errors.As(err, &ce) || ce.Kind != convert.Input || !strings.Contains(ce.Error(), "it is a tuple of 2 elements") {
		t.Errorf("CompileShape of a tuple: %#v", err)
	}
	ix, err := convert.CompileShape("%p = f32[2,3]{0,1} parameter(0)")
	if err != nil || ix.FootprintBytes() != 24 || ix.Shape().String() != "f32[2,3]{0,1}" {
		t.Errorf("CompileShape of an instruction: %v, %v", ix, err)
	}
}

func TestReadTextFile(t *testing.T) {
	dir := t.TempDir()
	p := testfiles.WriteFile(t, dir, "a.txt", []byte("0123456789"))
	if b, err := convert.ReadTextFile(p, "MODULE", 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	for _, c := range []struct {
		path  string
		limit int64
		want  string
	}{
		{p, 9, "cannot read MODULE " + p + ": it is larger than the limit of 9 B for a text file"},
		{dir, 10, "cannot read MODULE " + dir + ": "},
		{filepath.Join(dir, "none"), 10, "cannot read MODULE " + filepath.Join(dir, "none") + ": "},
	} {
		_, err := convert.ReadTextFile(c.path, "MODULE", c.limit)
		var e *convert.Error
		if !errors.As(err, &e) || e.Kind != convert.Input || !strings.HasPrefix(e.Error(), c.want) {
			t.Errorf("%s, limit %d: %v; want an input error starting %q", c.path, c.limit, err, c.want)
		}
	}
}

// TestWithModuleAsReadModule: a module read through WithModule (mapped where it can
// be) is the module ReadModule reads, and a file ReadModule refuses is refused with
// the same error, mapped or not.
func TestWithModuleAsReadModule(t *testing.T) {
	files, err := filepath.Glob("../testdata/hlo/*.hlo")
	if err != nil || len(files) == 0 {
		t.Fatalf("no modules in ../testdata/hlo: %v", err)
	}
	dir := t.TempDir()
	write := func(name, text string) string { return testfiles.WriteFile(t, dir, name, []byte(text)) }
	files = append(files,
		write("empty.hlo", ""),
		write("nul.hlo", "HloModule m\n\x00"),
		write("nul-late.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n\x00"),
		write("bad.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n"),
		filepath.Join(dir, "missing.hlo"),
		dir,
	)
	for _, path := range files {
		want, wantErr := convert.ReadModule(path)
		var got string
		err := convert.WithModule(path, func(m *hlo.Module) error {
			got = listing(t, m)
			return nil
		})
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, want %v", path, err, wantErr)
			continue
		}
		if err == nil && got != listing(t, want) {
			t.Errorf("%s: the listing differs from ReadModule's module's:\n%s", path, got)
		}
	}
}

// listing is the hlo report of every instruction of m, as text and as JSON.
func listing(t *testing.T, m *hlo.Module) string {
	t.Helper()
	rep := report.NewHLO(m, report.HLOOptions{All: true})
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String() + testenv.JSON(t, rep)
}

// TestModuleSyntaxErrorIsCause: a module that does not parse is an Input *Error whose
// cause is hlo's *SyntaxError, with its fields, which the caller words.
func TestModuleSyntaxErrorIsCause(t *testing.T) {
	_, err := convert.ReadModuleFrom(strings.NewReader("HloModule m\n\nENTRY e {\n  p = f32[2 parameter(0)\n}\n"), "m.txt")
	var se *hlo.SyntaxError
	if convert.KindOf(err) != convert.Input || !errors.As(err, &se) || se.Line == 0 {
		t.Fatalf("%v: want an Input error caused by an hlo.SyntaxError", err)
	}
	if got := err.Error(); !strings.HasPrefix(got, "m.txt: hlo: line ") {
		t.Errorf("Error() %q, want hlo's error, prefix and all, after the name", got)
	}
}
