package convert

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/report"
)

// TestWithModuleAsReadModule: a module read through WithModule (mapped where it can
// be) is the module ReadModule reads, and a file ReadModule refuses is refused with
// the same error, mapped or not.
func TestWithModuleAsReadModule(t *testing.T) {
	files, err := filepath.Glob("../testdata/hlo/*.hlo")
	if err != nil || len(files) == 0 {
		t.Fatalf("no modules in ../testdata/hlo: %v", err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files = append(files,
		write("empty.hlo", ""),
		write("nul.hlo", "HloModule m\n\x00"),
		write("nul-late.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n\x00"),
		write("bad.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n"),
		filepath.Join(dir, "missing.hlo"),
		dir,
	)
	for _, path := range files {
		want, wantErr := ReadModule(path)
		var got string
		err := WithModule(path, func(m *hlo.Module) error {
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
	j, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b.String() + string(j)
}

// TestModuleSyntaxErrorIsCause: a module that does not parse is an Input *Error whose
// cause is hlo's *SyntaxError, with its fields, which the caller words.
func TestModuleSyntaxErrorIsCause(t *testing.T) {
	_, err := ReadModuleFrom(strings.NewReader("HloModule m\n\nENTRY e {\n  p = f32[2 parameter(0)\n}\n"), "m.txt")
	var se *hlo.SyntaxError
	if KindOf(err) != Input || !errors.As(err, &se) || se.Line == 0 {
		t.Fatalf("%v: want an Input error caused by an hlo.SyntaxError", err)
	}
	if got := err.Error(); !strings.HasPrefix(got, "m.txt: hlo: line ") {
		t.Errorf("Error() %q, want hlo's error, prefix and all, after the name", got)
	}
}
