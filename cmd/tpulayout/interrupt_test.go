package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestInterruptRemovesTemporaryOutput interrupts conversions of a 1 GiB sparse input
// once their temporary output exists, and checks the exit status and that the directory
// holds only the input.
func TestInterruptRemovesTemporaryOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot remove a file that is open, nor send SIGINT to a process")
	}
	for _, tc := range []struct {
		name string
		out  string // relative to the directory
		args []string
	}{
		{"file", "out.bin", []string{"--from", "f32[16384,16384]{1,0}", "--to", "bf16[16384,16384]{1,0:T(8,128)(2,1)}"}},
		{"transposed file", "out.bin", []string{"--from", "f32[16384,16384]{1,0}", "--to", "f32[16384,16384]{0,1}"}},
		{"signal", "out.bin", []string{"--from", "f32[16384,16384]{1,0}", "--to", "bf16[16384,16384]{1,0:T(8,128)(2,1)}", "SIGTERM"}},
		{"hangup", "out.bin", []string{"--from", "f32[16384,16384]{1,0}", "--to", "bf16[16384,16384]{1,0:T(8,128)(2,1)}", "SIGHUP"}},
		{"quit", "out.bin", []string{"--from", "f32[16384,16384]{1,0}", "--to", "bf16[16384,16384]{1,0:T(8,128)(2,1)}", "SIGQUIT"}},
		{"directory", "out", []string{"--all", "--to", "tpu:v5e", "--dtype", "bf16"}},
		{"directory hangup", "out", []string{"--all", "--to", "tpu:v5e", "--dtype", "bf16", "SIGHUP"}},
		{"directory quit", "out", []string{"--all", "--to", "tpu:v5e", "--dtype", "bf16", "SIGQUIT"}},
		{"sharded", "out", []string{"--all", "--to", "tpu:v5e", "--dtype", "bf16", "--mesh", "x=2", "--spec", `P("x")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := sparseInput(t, dir, tc.args[0] == "--all", 16384*16384*4)
			sig := os.Signal(os.Interrupt)
			args := tc.args
			if s, ok := map[string]os.Signal{"SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP, "SIGQUIT": syscall.SIGQUIT}[args[len(args)-1]]; ok {
				sig, args = s, args[:len(args)-1]
			}
			cmd := exec.Command(os.Args[0], append([]string{"convert", in, filepath.Join(dir, tc.out)}, args...)...)
			cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the temporary output to appear, then interrupt.
			deadline := time.Now().Add(30 * time.Second)
			for len(testfiles.DirNames(t, dir)) < 2 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no temporary output after 30 s; stderr: %s", stderr.String())
				}
				time.Sleep(time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("convert finished before the signal (err %v); make the input larger", err)
			}
			if exit.ExitCode() != exitInterrupted {
				t.Errorf("exit status %d, want %d; stderr: %s", exit.ExitCode(), exitInterrupted, stderr.String())
			}
			if !strings.Contains(stderr.String(), "stopped by") {
				t.Errorf("stderr %q does not say it stopped", stderr.String())
			}
			if got := testfiles.DirNames(t, dir); len(got) != 1 || got[0] != filepath.Base(in) {
				t.Errorf("directory holds %q after the interrupt, want only %s", got, filepath.Base(in))
			}
		})
	}
}

// TestBrokenPipeRemovesTemporaryOutput closes the pipe a child convert writes its
// progress to: the SIGPIPE of the next write must not leave the temporary output.
func TestBrokenPipeRemovesTemporaryOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.raw")
	if err := os.WriteFile(in, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(in, 16384*16384*4); err != nil { // sparse: reads as zeros
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "convert", in, filepath.Join(dir, "out.bin"), "--progress",
		"--from", "f32[16384,16384]{1,0}", "--to", "bf16[16384,16384]{1,0:T(8,128)(2,1)}")
	cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close() // before the first progress line: writing it raises SIGPIPE
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("convert succeeded (err %v) with its stderr closed", err)
	}
	if exit.ExitCode() != exitBrokenPipe {
		t.Errorf("exit status %d (%v), want %d", exit.ExitCode(), err, exitBrokenPipe)
	}
	if got := testfiles.DirNames(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q after the broken pipe, want only in.raw", got)
	}
}

// sparseInput makes IN for a long conversion in dir: raw bytes of size, or with all a
// safetensors checkpoint of one 1 GiB f32 tensor, sparse so that it reads as zeros.
func sparseInput(t *testing.T, dir string, all bool, size int64) string {
	t.Helper()
	in := filepath.Join(dir, "in.raw")
	var hdr []byte
	if all {
		in = filepath.Join(dir, "in.safetensors")
		js := `{"w":{"dtype":"F32","shape":[16384,16384],"data_offsets":[0,1073741824]}}`
		hdr = binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
		hdr = append(hdr, js...)
	}
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(hdr)
	if err := f.Truncate(int64(len(hdr)) + size); err != nil {
		t.Fatal(err)
	}
	return in
}
