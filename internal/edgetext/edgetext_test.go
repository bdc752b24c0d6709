package edgetext

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/errtext"
)

// worded is a Worded error of one sentence.
type worded struct {
	format string
	args   []any
}

func (w worded) Error() string { return w.Words(nil, nil) }
func (w worded) Words(name func(string) string, cause func(error) string) string {
	return errtext.Fill(w.format, w.args, func(f string) bool { return f == "To" || f == "In" }, name, cause)
}

func TestText(t *testing.T) {
	flag := func(f string) string { return map[string]string{"To": "--to", "In": "IN"}[f] }
	missing := &fs.PathError{Op: "open", Path: "x.npy", Err: fs.ErrNotExist}
	for _, c := range []struct {
		err       error
		lib, flag string
	}{
		{worded{"missing {To}", nil}, "missing To", "missing --to"},
		{worded{"cannot read {In} %s: %s", []any{"x.npy", missing}}, "cannot read In x.npy: open x.npy: file does not exist", "cannot read IN x.npy: file does not exist"},
		{worded{"{To}: %s", []any{worded{"bad {To} %q: %s", []any{"f", errors.New("layout: bad")}}}}, `To: bad To "f": layout: bad`, `--to: bad --to "f": bad`},
		{worded{"{1,0:T(8,128)} {Out} {To", nil}, "{1,0:T(8,128)} {Out} {To", "{1,0:T(8,128)} {Out} {To"},
		{errors.New("layout: kept as it is"), "layout: kept as it is", "layout: kept as it is"},
	} {
		if got := c.err.Error(); got != c.lib {
			t.Errorf("Error() %q, want %q", got, c.lib)
		}
		if got := Text(c.err, flag); got != c.flag {
			t.Errorf("Text %q, want %q", got, c.flag)
		}
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"layout: bad tile":                                              "bad tile",
		"x: relayout: y; tpu: z (buffer: w)":                            "x: y; z (w)",
		"has no TPU vreg layout: fine":                                  "has no TPU vreg layout: fine",
		"m.txt: hlo: line 1, col 5: bad":                                "m.txt: line 1, col 5: bad",
		"validate: generation \"v9\": tpu: unknown generation":          "generation \"v9\": unknown generation",
		"write hlo:MODULE.txt:param=N":                                  "write hlo:MODULE.txt:param=N",
		`safetensors: unsupported element type: tensor "a": dtype "I4"`: `tensor "a" has dtype "I4", which tpulayout does not support`,
	} {
		if got := Clean(errors.New(in)); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Cause(fmt.Errorf("wrapped: %w", &fs.PathError{Op: "open", Path: "p", Err: fs.ErrPermission}), nil); !strings.Contains(got, "permission denied") || strings.Contains(got, "open") {
		t.Errorf("Cause of a wrapped PathError: %q", got)
	}
}
