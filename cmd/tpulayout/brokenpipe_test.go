package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// epipeWriter fails as os.Stdout does when its pipe's reader has gone.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// A write's EPIPE that wins the race with the SIGPIPE handler still exits 141 silently,
// as README promises ("tpulayout info 'f32[3,5]' | (exec 0<&-; sleep 1)" once exited 2
// with "write /dev/stdout: broken pipe" about half the time).
func TestBrokenPipeIsSilent141(t *testing.T) {
	var stderr strings.Builder
	code := run([]string{"info", "f32[3,5]"}, epipeWriter{}, &stderr)
	if code != exitBrokenPipe || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr.String(), exitBrokenPipe)
	}
}

// "tpulayout convert … --progress 2>&1 | head -1" exited 141 although OUT was complete
// and renamed into place: the broken pipe only lost the last progress line and the
// shape line on stdout. Here stdout is a pipe closed from the start and stderr a file,
// so that the only broken write comes after OUT is in place.
func TestBrokenPipeAfterOutIsInPlace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE")
	}
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "x.npy", testfiles.RandomBuffer(t, "f32[64,256]", 5))
	out := filepath.Join(dir, "out.bin")
	const to = "bf16[64,256]{1,0:T(8,128)(2,1)}"
	cmd := exec.Command(os.Args[0], "convert", in, out, "--progress", "--to", to)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	r.Close() // no reader: the shape line on stdout raises SIGPIPE
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("convert: %v (stderr %q), want exit 0: OUT was in place", err, stderr.String())
	}
	want := filepath.Join(dir, "want.bin")
	mustRun(t, "convert", in, want, "--to", to)
	if !bytes.Equal(readFile(t, out), readFile(t, want)) {
		t.Error("OUT differs from a conversion without the broken pipe")
	}
}

// The in-process half: run's own EPIPE check on stdout, which wins when the signal
// handler has not run yet.
func TestBrokenStdoutAfterOutIsInPlace(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "x.npy", testfiles.RandomBuffer(t, "f32[8,128]", 6))
	var stderr strings.Builder
	code := run([]string{"convert", in, filepath.Join(dir, "o.bin"), "--to", "tpu:v5e"}, epipeWriter{}, &stderr)
	if code != exitOK || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	// Before OUT is in place (or with no OUT at all) it stays 141.
	if code := run([]string{"info", "f32[3,5]"}, epipeWriter{}, &stderr); code != exitBrokenPipe {
		t.Errorf("info: exit %d, want %d", code, exitBrokenPipe)
	}
}

// The same for a sharded conversion: its directory is in place when stdout breaks.
func TestBrokenStdoutAfterShardedOutIsInPlace(t *testing.T) {
	in, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sharding", "replicated.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var stderr strings.Builder
	code := run([]string{"convert", in, out, "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e"}, epipeWriter{}, &stderr)
	if code != exitOK || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Error(err)
	}
}
