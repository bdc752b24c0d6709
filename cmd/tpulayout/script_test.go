package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// fixtures holds arrays NumPy made and their device images (testdata/gen_fixtures.py).
const fixtures = "testdata/convert/"

// absPath is filepath.Abs(p), failing t on error.
func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestScript runs the scenarios in testdata/script, one per file, in the way of
// cmd/go's script tests (github.com/rogpeppe/go-internal/testscript). Each runs in its
// own directory, where $TESTDATA is the repository's testdata and $FIXTURES this
// package's testdata/convert (arrays NumPy made), and $GOLDEN holds the outputs
// that report's tests also compare with (testdata/*.golden). Besides testscript's
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
//	writehex FILE HEX       write the bytes HEX spells (spaces allowed) to FILE
//	cmphex FILE HEX         FILE holds the bytes HEX spells
//	cmptree DIR1 DIR2       the directories hold the same files, byte for byte
//	shardckpt DIR           write testfiles.ShardCheckpoint into DIR
//	randsafetensors FILE NAME=SHAPE:SEED...
//	                        write random tensors to a safetensors file; a NAME in
//	                        double quotes is a Go string ("a\nb")
//	ls DIR                  print the names in DIR, hidden ones too, one a line
//	cpdir SRC DST           copy the directory SRC to the new directory DST
//	tailhex FILE N          print the last N bytes of FILE in hex
//	replace FILE OLD NEW    replace the first OLD in FILE with NEW (OLD must be there)
//	poke FILE OFFSET HEX    write the bytes HEX spells into FILE at OFFSET
//	kind PATH               print what PATH is, not following a link: file, dir,
//	                        symlink, fifo, chardev or other
//
// and those of moreScriptCmds (schema, cmpjson, npysafetensors). $TPULAYOUT is the
// command's path, for "exec $TPULAYOUT ... &" (processes at the same time).
//
// A scenario may also set the command's limits in its environment (main_test.go):
// TPULAYOUT_TEST_BAND_BYTES, TPULAYOUT_TEST_MEMORY, TPULAYOUT_TEST_FREE_DISK and
// TPULAYOUT_TEST_SPARSE_MIN.
//
// go test -update rewrites the expected files of failing "cmp stdout|stderr" lines.
func TestScript(t *testing.T) {
	env := map[string]string{
		"TESTDATA": absPath(t, filepath.Join("..", "..", "testdata")),
		"FIXTURES": absPath(t, fixtures),
		"GOLDEN":   absPath(t, "testdata"),
		"NL":       "\n", // a newline inside an argument
	}
	cmds := map[string]func(*testscript.TestScript, bool, []string){
		"randnpy":         scriptRandNPY,
		"rawnpy":          scriptRawNPY,
		"safetensors":     scriptSafetensors,
		"truncate":        scriptTruncate,
		"writehex":        scriptWriteHex,
		"cmphex":          scriptCmpHex,
		"cmptree":         scriptCmpTree,
		"shardckpt":       scriptShardCheckpoint,
		"randsafetensors": scriptRandSafetensors,
		"ls":              scriptLs,
		"cpdir":           scriptCpDir,
		"tailhex":         scriptTailHex,
		"replace":         scriptReplace,
		"poke":            scriptPoke,
		"kind":            scriptKind,
	}
	maps.Copy(cmds, moreScriptCmds)
	testscript.Run(t, scriptParams(t, "script", env, cmds))
}

// scriptParams runs the scenarios of testdata/DIR, one per file, each with env in its
// environment besides $TPULAYOUT (this test binary, run as the real process), and the
// commands tpulayout and status besides cmds.
func scriptParams(t *testing.T, dir string, env map[string]string, cmds map[string]func(*testscript.TestScript, bool, []string)) testscript.Params {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]func(*testscript.TestScript, bool, []string){
		"tpulayout": func(ts *testscript.TestScript, neg bool, args []string) { runScriptCmd(ts, neg, bin, args) },
		"status":    scriptStatus,
	}
	maps.Copy(all, cmds)
	return testscript.Params{
		Dir:                 filepath.Join("testdata", dir),
		UpdateScripts:       *update,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			for k, v := range env {
				e.Setenv(k, v)
			}
			e.Setenv(runMainEnv, "1")
			e.Setenv("TPULAYOUT", bin)
			return nil
		},
		Cmds: all,
	}
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

func scriptWriteHex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: writehex FILE HEX...")
	}
	b, err := hex.DecodeString(strings.Join(args[1:], ""))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
}

func scriptCmpHex(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: cmphex FILE HEX...")
	}
	want, err := hex.DecodeString(strings.Join(args[1:], ""))
	ts.Check(err)
	got, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if bytes.Equal(got, want) == neg {
		ts.Fatalf("%s holds % x", args[0], got)
	}
}

func scriptCmpTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmptree DIR1 DIR2")
	}
	a, b := treeOf(ts, args[0]), treeOf(ts, args[1])
	for name, data := range a {
		if other, ok := b[name]; !ok {
			ts.Fatalf("%s is in %s only", name, args[0])
		} else if data != other {
			ts.Fatalf("%s differs between %s and %s", name, args[0], args[1])
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			ts.Fatalf("%s is in %s only", name, args[1])
		}
	}
}

// treeOf reads every file under dir, by slash path relative to it.
func treeOf(ts *testscript.TestScript, dir string) map[string]string {
	root := ts.MkAbs(dir)
	files := map[string]string{}
	ts.Check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return files
}

func scriptShardCheckpoint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: shardckpt DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	testfiles.ShardCheckpoint(scriptT{ts: ts}, dir)
}

func scriptRandSafetensors(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: randsafetensors FILE NAME=SHAPE:SEED...")
	}
	var tensors []safetensors.NamedBuffer
	for _, a := range args[1:] {
		name, rest, ok1 := strings.Cut(a, "=")
		shape, seedText, ok2 := strings.Cut(rest, ":")
		seed, err := strconv.ParseUint(seedText, 10, 64)
		if strings.HasPrefix(name, `"`) && err == nil {
			name, err = strconv.Unquote(name)
		}
		if !ok1 || !ok2 || err != nil {
			ts.Fatalf("randsafetensors: bad tensor %q, want NAME=SHAPE:SEED", a)
		}
		tensors = append(tensors, safetensors.NamedBuffer{Name: name, Buf: testfiles.RandomBuffer(scriptT{ts: ts}, shape, seed)})
	}
	ts.Check(safetensors.Write(ts.MkAbs(args[0]), tensors, nil))
}

func scriptLs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ls DIR")
	}
	w := ts.Stdout() // an empty directory empties stdout too
	for _, n := range testfiles.DirNames(scriptT{ts: ts}, ts.MkAbs(args[0])) {
		fmt.Fprintln(w, n)
	}
}

func scriptCpDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpdir SRC DST")
	}
	ts.Check(os.CopyFS(ts.MkAbs(args[1]), os.DirFS(ts.MkAbs(args[0]))))
}

func scriptTailHex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tailhex FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if n > len(b) {
		ts.Fatalf("%s has %d bytes", args[0], len(b))
	}
	fmt.Fprintf(ts.Stdout(), "%x\n", b[len(b)-n:])
}

func scriptReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if !strings.Contains(string(b), args[1]) {
		ts.Fatalf("%s does not hold %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Replace(string(b), args[1], args[2], 1)), 0o644))
}

func scriptPoke(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: poke FILE OFFSET HEX")
	}
	off, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	b, err := hex.DecodeString(args[2])
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY, 0)
	ts.Check(err)
	_, err = f.WriteAt(b, off)
	ts.Check(errors.Join(err, f.Close()))
}

func scriptKind(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: kind PATH")
	}
	st, err := os.Lstat(ts.MkAbs(args[0]))
	ts.Check(err)
	kind := "other"
	switch m := st.Mode(); {
	case m.IsRegular():
		kind = "file"
	case m.IsDir():
		kind = "dir"
	case m&fs.ModeSymlink != 0:
		kind = "symlink"
	case m&fs.ModeNamedPipe != 0:
		kind = "fifo"
	case m&fs.ModeCharDevice != 0:
		kind = "chardev"
	}
	fmt.Fprintln(ts.Stdout(), kind)
}
