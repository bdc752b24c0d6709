package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// captureNotes sends progressOut (where notes go) to a buffer for the test.
func captureNotes(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	saved := progressOut
	progressOut = &buf
	t.Cleanup(func() { progressOut = saved })
	return &buf
}

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
