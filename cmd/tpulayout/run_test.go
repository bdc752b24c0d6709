package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runCmd runs the command with args and returns its stdout, stderr and exit status.
func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// mustRun runs the command and fails the test unless it succeeds silently on stderr.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCmd(t, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("tpulayout %q: exit %d, stderr %q", args, code, errOut)
	}
	return out
}

// runJSON runs the command and decodes its stdout as one JSON object.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out := mustRun(t, args...)
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("tpulayout %q: output is not JSON: %v\n%s", args, err, out)
	}
	return m
}

// num reads a JSON number as int64.
func num(t *testing.T, m map[string]any, key string) int64 {
	t.Helper()
	v, ok := m[key]
	if !ok {
		t.Fatalf("JSON has no key %q: %v", key, m)
	}
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("JSON key %q is %T %v, not a number", key, v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("JSON key %q: %v", key, err)
	}
	return i
}

// ints reads a JSON array of numbers.
func ints(t *testing.T, m map[string]any, key string) []int64 {
	t.Helper()
	v, ok := m[key].([]any)
	if !ok {
		t.Fatalf("JSON key %q is %T %v, not an array", key, m[key], m[key])
	}
	out := []int64{}
	for _, e := range v {
		n, err := e.(json.Number).Int64()
		if err != nil {
			t.Fatalf("JSON key %q: %v", key, err)
		}
		out = append(out, n)
	}
	return out
}

// wantUsageError checks the failure contract: exit 2, nothing on stdout, exactly one line
// on stderr, containing every want.
func wantUsageError(t *testing.T, args []string, wants ...string) {
	t.Helper()
	out, errOut, code := runCmd(t, args...)
	if code != 2 {
		t.Errorf("tpulayout %q: exit %d, want 2 (stderr %q)", args, code, errOut)
	}
	if out != "" {
		t.Errorf("tpulayout %q: stdout %q, want nothing", args, out)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
		t.Errorf("tpulayout %q: stderr %q is not exactly one line", args, errOut)
	}
	if !strings.HasPrefix(errOut, "tpulayout") {
		t.Errorf("tpulayout %q: stderr %q does not start with the command name", args, errOut)
	}
	for _, w := range wants {
		if !strings.Contains(errOut, w) {
			t.Errorf("tpulayout %q: stderr %q does not mention %q", args, errOut, w)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}, {"help", "help"}} {
		out, errOut, code := runCmd(t, args...)
		if code != 0 || errOut != "" {
			t.Errorf("tpulayout %q: exit %d, stderr %q", args, code, errOut)
		}
		for _, v := range verbs {
			if !strings.Contains(out, strings.TrimSpace("tpulayout "+v.name+" "+v.synopsis)+"\n") {
				t.Errorf("tpulayout %q: usage does not list %q:\n%s", args, v.name, out)
			}
		}
	}
	for _, v := range verbs {
		for _, args := range [][]string{{"help", v.name}, {v.name, "-h"}, {v.name, "--help"}, {v.name, "SHAPE", "-h"}} {
			out, errOut, code := runCmd(t, args...)
			if code != 0 || errOut != "" {
				t.Errorf("tpulayout %q: exit %d, stderr %q", args, code, errOut)
			}
			if !strings.HasPrefix(out, "Usage: tpulayout "+v.name) {
				t.Errorf("tpulayout %q: output does not start with the verb's usage:\n%s", args, out)
			}
		}
	}
	out := mustRun(t, "help", "show")
	for _, f := range []string{"-svg FILE", "-max N", "-max-slices N"} {
		if !strings.Contains(out, f) {
			t.Errorf("help show does not document %s:\n%s", f, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	const s35 = "f32[3,5]{1,0:T(2,2)}"
	cases := []struct {
		args  []string
		wants []string
	}{
		{[]string{"bogus"}, []string{`unknown verb "bogus"`}},
		{[]string{"--json"}, []string{`unknown flag "--json"`}},
		{[]string{"help", "bogus"}, []string{`unknown verb "bogus"`}},
		{[]string{"help", "info", "show"}, []string{"too many arguments"}},

		{[]string{"info"}, []string{"missing SHAPE", "usage: tpulayout info SHAPE"}},
		{[]string{"info", "--json"}, []string{"missing SHAPE"}},
		{[]string{"info", s35, "extra"}, []string{`unexpected argument "extra"`}},
		{[]string{"info", s35, "--bogus"}, []string{"unknown flag --bogus"}},
		{[]string{"info", "--json=maybe", s35}, []string{"invalid boolean value"}},
		{[]string{"info", "f32[2,3]{0,0}"}, []string{"repeats dimension 0", "at byte 11"}},
		{[]string{"info", "f32[2,3]{1,2}"}, []string{"out of range for rank 2", "at byte 11"}},
		{[]string{"info", "f32[3,5"}, []string{`bad shape "f32[3,5"`, "at byte 7"}},
		{[]string{"info", "F32[3,5]"}, []string{"unknown primitive type", "at byte 0"}},
		{[]string{"info", "f32[3,5]{1,0:T(2,-1)}"}, []string{"at byte 17", "at least 1"}},
		{[]string{"info", "f32[3,5]{1,0:T(2,*)}"}, []string{"combined"}},
		{[]string{"info", ""}, []string{"at byte 0"}},
		{[]string{"info", "f32[?,5]"}, []string{"unbounded"}},
		{[]string{"info", "(f32[2], f32[3])"}, []string{"not an array"}},
		{[]string{"info", "token[]"}, []string{"not an array"}},
		{[]string{"info", "f32[3,5]\nextra"}, []string{"extra content", "at byte 9"}},

		{[]string{"explain"}, []string{"missing SHAPE and INDEX"}},
		{[]string{"explain", s35}, []string{"missing INDEX"}},
		{[]string{"explain", s35, "2"}, []string{"1 coordinates", "rank 2"}},
		{[]string{"explain", s35, "2,3,4"}, []string{"3 coordinates", "rank 2"}},
		{[]string{"explain", s35, ""}, []string{"0 coordinates", "rank 2"}},
		{[]string{"explain", s35, "3,0"}, []string{"coordinate 3 is out of range for dimension 0 of size 3"}},
		{[]string{"explain", s35, "0,5"}, []string{"coordinate 5 is out of range for dimension 1 of size 5"}},
		{[]string{"explain", s35, "a,1"}, []string{`"a" is not a number`}},
		{[]string{"explain", s35, "1,,1"}, []string{"empty coordinate"}},
		{[]string{"explain", s35, "1;2"}, []string{"not a number"}},
		{[]string{"explain", s35, "99999999999999999999,0"}, []string{"out of range"}},
		{[]string{"explain", s35, "-1,0"}, []string{"negative"}},
		{[]string{"explain", s35, "1,-1"}, []string{"out of range"}},
		{[]string{"explain", "f32[]", "0"}, []string{"rank 0"}},
		{[]string{"explain", "f32[3,5", "1,1"}, []string{"at byte 7"}},
		{[]string{"explain", s35, "1,1", "2,2"}, []string{"unexpected argument"}},
		{[]string{"explain", s35, "1,1", "--offset", "3"}, []string{"not both"}},
		{[]string{"explain", s35, "--offset", "24"}, []string{"outside the footprint", "0 to 23"}},
		{[]string{"explain", s35, "--offset=-1"}, []string{"outside the footprint"}},
		{[]string{"explain", s35, "--offset", "x"}, []string{"not a number"}},
		{[]string{"explain", s35, "--offset"}, []string{"flag --offset needs an argument"}},
		{[]string{"explain", "--offset", "3"}, []string{"missing SHAPE"}},
		{[]string{"explain", "f32[0,5]", "--offset", "0"}, []string{"empty footprint"}},
		{[]string{"explain", "f32[0,5]", "0,0"}, []string{"out of range for dimension 0 of size 0"}},
		{[]string{"explain", s35, "1,1", "--xml"}, []string{"unknown flag --xml"}},

		{[]string{"show"}, []string{"missing SHAPE"}},
		{[]string{"show", "f32[3,5]{1,0:T(2,2)"}, []string{"at byte 19"}},
		{[]string{"show", "f32[65,3]"}, []string{"65 rows × 3 columns", "--max"}},
		{[]string{"show", "f32[3,65]"}, []string{"3 rows × 65 columns", "--max"}},
		{[]string{"show", "f32[100]"}, []string{"100 elements in one row", "--max"}},
		{[]string{"show", "f32[200,200]", "--max", "100"}, []string{"more than the limit of 100"}},
		{[]string{"show", "f32[17,2,2]"}, []string{"more than 16 slices", "--max-slices"}},
		{[]string{"show", "f32[5,5,2,2]"}, []string{"more than 16 slices"}},
		{[]string{"show", "f32[2,2]", "--max", "0"}, []string{"at least 1"}},
		{[]string{"show", "f32[2,2]", "--max", "x"}, []string{"invalid value"}},
		{[]string{"show", "f32[2,2]", "--svg"}, []string{"flag --svg needs an argument"}},
		{[]string{"show", "f32[2,2]", "f32[2,2]"}, []string{"unexpected argument"}},
	}
	for _, c := range cases {
		wantUsageError(t, c.args, c.wants...)
	}
}

// TestFlagsAnywhere checks that flags may come before, between or after the arguments.
func TestFlagsAnywhere(t *testing.T) {
	const s = "f32[3,5]{1,0:T(2,2)}"
	want := mustRun(t, "explain", s, "2,3", "--json")
	for _, args := range [][]string{
		{"explain", "--json", s, "2,3"},
		{"explain", s, "--json", "2,3"},
		{"explain", s, "-json", "2,3"},
		{"explain", "--json=true", s, "2,3"},
		{"explain", s, "2,3", "--json", "--"},
		{"explain", "--json", "--", s, "2,3"},
	} {
		if got := mustRun(t, args...); got != want {
			t.Errorf("tpulayout %q:\n%s\nwant\n%s", args, got, want)
		}
	}
	// After "--" everything is positional.
	wantUsageError(t, []string{"explain", s, "--", "2,3", "--json"}, `unexpected argument "--json"`)
	if a, b := mustRun(t, "show", "--max", "70", "f32[66,2]"), mustRun(t, "show", "f32[66,2]", "--max=70"); a != b {
		t.Errorf("show --max before and after the shape differ")
	}
}

// TestGolden compares the text outputs with testdata/*.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"info_bf16_3x5", []string{"info", "bf16[3,5]{1,0:T(8,128)(2,1)}"}},
		{"info_bf16_3x5_json", []string{"info", "bf16[3,5]{1,0:T(8,128)(2,1)}", "--json"}},
		{"info_combined", []string{"info", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"}},
		{"info_s4_tail", []string{"info", "s4[64,128]{1,0:T(8,128)L(10000)E(4)}"}},
		{"info_scalar", []string{"info", "u32[]{:T(128)}"}},
		{"explain_f32_3x5", []string{"explain", "f32[3,5]{1,0:T(2,2)}", "2,3"}},
		{"explain_f32_3x5_json", []string{"explain", "f32[3,5]{1,0:T(2,2)}", "2,3", "--json"}},
		{"explain_bf16_nested", []string{"explain", "bf16[256,1024]{1,0:T(8,128)(2,1)}", "3,5"}},
		{"explain_s4", []string{"explain", "s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", "7,0"}},
		{"explain_padding", []string{"explain", "f32[3,5]{1,0:T(2,2)}", "--offset", "11"}},
		{"explain_padding_json", []string{"explain", "f32[3,5]{1,0:T(2,2)}", "--offset", "11", "--json"}},
		{"explain_tail_padding", []string{"explain", "f32[3,5]{1,0:T(2,2)L(100)}", "--offset", "99"}},
		{"show_bf16_4x8", []string{"show", "bf16[4,8]{1,0:T(2,4)(2,1)}"}},
		{"show_rank3", []string{"show", "f32[2,3,5]{1,2,0:T(2,2)}"}},
		{"help", []string{"help"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkGolden(t, c.name, mustRun(t, c.args...))
		})
	}
}

func TestPanicIsOneLine(t *testing.T) {
	saved := verbs
	defer func() { verbs = saved }()
	boom := &verb{name: "boom", define: func(*flag.FlagSet) func([]string, io.Writer) error {
		return func([]string, io.Writer) error { panic("kaboom\nsecond line") }
	}}
	verbs = append(append([]*verb(nil), saved...), boom)
	out, errOut, code := runCmd(t, "boom")
	if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "internal error: kaboom") {
		t.Errorf("panicking verb: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A verb that finds a mismatch prints its report before the one-line summary, so that a
// terminal, where stdout and stderr share the screen, shows them in that order.
func TestReportBeforeSummary(t *testing.T) {
	var both bytes.Buffer
	code := run([]string{"blockspec", "--array", "bf16[4096,4096]", "--block", "200,500", "--gen", "v5e"}, &both, &both)
	if code != exitMismatch {
		t.Fatalf("exit %d, want %d:\n%s", code, exitMismatch, both.String())
	}
	lines := strings.Split(strings.TrimSuffix(both.String(), "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "array:") || !strings.HasPrefix(lines[len(lines)-1], "tpulayout blockspec: ") {
		t.Errorf("want the report, then the summary last:\n%s", both.String())
	}
}

// Help lists flags as the prose writes them (--name), and a typo gets the nearest flag or
// verb (issue 27).
func TestFlagStyleAndSuggestions(t *testing.T) {
	for _, v := range verbs {
		out, _, code := runCmd(t, v.name, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", v.name, code)
		}
		_, flags, _ := strings.Cut(out, "\nFlags:\n")
		for _, line := range strings.Split(flags, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
				t.Errorf("%s --help lists a flag with one dash: %q", v.name, line)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "a.npy", "b.bin", "--too", "tpu:v5e"}, "unknown flag --too (did you mean --to?)"},
		{[]string{"info", "f32[2]", "--jsno"}, "unknown flag --jsno (did you mean --json?)"},
		{[]string{"conver", "a", "b"}, `unknown verb "conver" (did you mean convert?)`},
		{[]string{"help", "valdiate"}, `unknown verb "valdiate" (did you mean validate?)`},
		{[]string{"show", "f32[2]", "--svg"}, "flag --svg needs an argument"},
		{[]string{"--verison"}, `unknown flag "--verison" (did you mean --version?)`},
	} {
		_, errOut, code := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.args, code, errOut, c.want)
		}
	}
	if _, errOut, _ := runCmd(t, "info", "f32[2]", "--zzzzzz"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a suggestion for a flag like none: %q", errOut)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"to", "from", "dtype", "tensor", "all", "progress"}
	for s, want := range map[string]string{"too": "to", "ot": "to", "fro": "from", "dtpye": "dtype", "prog": "progress", "x": "", "mesh": ""} {
		if got := nearest(s, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", s, got, want)
		}
	}
}
