//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// With standard output closed, OUT - fails naming why instead of exiting 0 with the
// image discarded (issue 44.10); "> /dev/null" still discards it on purpose.
func TestClosedStdout(t *testing.T) {
	in, _ := filepath.Abs(fixtures + "f32_20x300.npy")
	for _, c := range []struct {
		redirect string
		fails    bool
	}{
		{">&-", true},
		{"> /dev/null", false},
	} {
		for _, out := range []string{"-", "/dev/stdout"} {
			cmd := exec.Command("/bin/sh", "-c", `exec "$0" convert "$1" "$2" --to tpu:v5e `+c.redirect, os.Args[0], in, out)
			cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			switch {
			case c.fails && (!errors.As(err, &exit) || exit.ExitCode() != exitUsage || !strings.Contains(stderr.String(), "standard output is closed, so OUT "+out+" would be discarded")):
				t.Errorf("OUT %s %s: %v, stderr %q; want exit %d naming the closed standard output", out, c.redirect, err, stderr.String(), exitUsage)
			case !c.fails && err != nil:
				t.Errorf("OUT %s %s: %v, stderr %q", out, c.redirect, err, stderr.String())
			}
		}
	}
}

// TestConvertToDescriptor runs the command with OUT /dev/fd/1, standard output being a
// regular file, and /dev/fd/3, a descriptor it inherits: the bytes reach the file, which
// stays the same file. (Standard output a pipe is testdata/script/convert_out_stream.txt.)
func TestConvertToDescriptor(t *testing.T) {
	if _, err := os.Stat("/dev/fd/1"); err != nil {
		t.Skip("no /dev/fd here")
	}
	const (
		in = fixtures + "f32_20x300.npy"
		to = "bf16[20,300]{1,0:T(8,128)(2,1)}"
	)
	want := readFile(t, fixtures+"f32_20x300.bf16.T8x128_2x1.bin")
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("kept: ")
	before, _ := f.Stat()
	cmd := newChild("convert", in, "/dev/fd/1", "--to", to)
	cmd.Stdout = f
	if err := cmd.Run(); err != nil {
		t.Fatalf("OUT /dev/fd/1 to a file: %v; stderr %s", err, cmd.stderr.String())
	}
	after, err := os.Stat(f.Name())
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the file standard output was is gone or replaced (%v)", err)
	}
	if got := readFile(t, f.Name()); !bytes.Equal(got, append([]byte("kept: "), want...)) {
		t.Errorf("standard output's file holds %d bytes, want \"kept: \" and the %d of the image", len(got), len(want))
	}
	if names := testfiles.DirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %q", names)
	}

	g, err := os.Create(filepath.Join(dir, "fd3"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cmd = newChild("convert", in, "/dev/fd/3", "--to", to)
	cmd.ExtraFiles = []*os.File{g}
	if out, err := cmd.Output(); err != nil || string(out) != to+"\n" {
		t.Fatalf("OUT /dev/fd/3: %v, stdout %q; stderr %s", err, out, cmd.stderr.String())
	}
	if got := readFile(t, g.Name()); !bytes.Equal(got, want) {
		t.Errorf("descriptor 3's file holds %d bytes, want the %d of the image", len(got), len(want))
	}
}
