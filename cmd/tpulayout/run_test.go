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

// Help lists flags as the prose writes them (--name); the suggestions for typos are
// scenarios (testdata/script/usage_errors_dispatch.txt).
func TestFlagStyle(t *testing.T) {
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
}
