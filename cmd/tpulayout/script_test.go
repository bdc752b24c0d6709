package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestScript runs the scenarios in testdata/script, one per file, in the way of
// cmd/go's script tests (github.com/rogpeppe/go-internal/testscript). Each runs in its
// own directory, where $TESTDATA is the repository's testdata. Besides testscript's
// commands a scenario has:
//
//	tpulayout ARGS...       run the command (this test binary as the real process);
//	                        "! tpulayout" expects it to fail
//	status N                the last tpulayout's exit status was N
//	randnpy FILE SHAPE SEED write a .npy of random values (testfiles.RandomBuffer)
//	rawnpy FILE.npy OUT     write the elements of a .npy, headerless, to OUT
//	safetensors FILE NAME DTYPE DIMS BYTES
//	                        write a one-tensor safetensors file of zero bytes with any
//	                        header dtype; DIMS is comma-separated
//	truncate FILE N         cut FILE to N bytes
//
// go test -update rewrites the expected files of failing "cmp stdout|stderr" lines.
func TestScript(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       *update,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			e.Setenv(runMainEnv, "1")
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"tpulayout":   func(ts *testscript.TestScript, neg bool, args []string) { runScriptCmd(ts, neg, bin, args) },
			"status":      scriptStatus,
			"randnpy":     scriptRandNPY,
			"rawnpy":      scriptRawNPY,
			"safetensors": scriptSafetensors,
			"truncate":    scriptTruncate,
		},
	})
}

// runScriptCmd runs the command as a process and records its exit status in $STATUS.
func runScriptCmd(ts *testscript.TestScript, neg bool, bin string, args []string) {
	err := ts.Exec(bin, args...)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		ts.Fatalf("tpulayout: %v", err)
	}
	ts.Setenv("STATUS", strconv.Itoa(code))
	if neg != (code != 0) {
		ts.Fatalf("tpulayout exited %d", code)
	}
}

func scriptStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: status N")
	}
	if got := ts.Getenv("STATUS"); got != args[0] {
		ts.Fatalf("exit status %s, want %s", got, args[0])
	}
}

// scriptT lets testfiles' helpers, written for testing.TB, fail a script.
type scriptT struct {
	testing.TB
	ts *testscript.TestScript
}

func (s scriptT) Helper()                   {}
func (s scriptT) Fatal(args ...any)         { s.ts.Fatalf("%v", args) }
func (s scriptT) Fatalf(f string, a ...any) { s.ts.Fatalf(f, a...) }

func scriptRandNPY(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: randnpy FILE SHAPE SEED")
	}
	seed, err := strconv.ParseUint(args[2], 10, 64)
	ts.Check(err)
	t := scriptT{ts: ts}
	b := testfiles.RandomBuffer(t, args[1], seed)
	testfiles.WriteNPY(t, filepath.Dir(ts.MkAbs(args[0])), filepath.Base(args[0]), b)
}

func scriptRawNPY(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rawnpy FILE.npy OUT")
	}
	b, err := npy.Read(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Data, 0o644))
}

func scriptSafetensors(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: safetensors FILE NAME DTYPE DIMS BYTES")
	}
	var dims []int
	for _, d := range strings.Split(args[3], ",") {
		n, err := strconv.Atoi(d)
		ts.Check(err)
		dims = append(dims, n)
	}
	n, err := strconv.Atoi(args[4])
	ts.Check(err)
	ts.Check(testfiles.WriteSafetensors(ts.MkAbs(args[0]), args[1], args[2], dims, make([]byte, n)))
}

func scriptTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate FILE N")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	ts.Check(os.Truncate(ts.MkAbs(args[0]), n))
}
