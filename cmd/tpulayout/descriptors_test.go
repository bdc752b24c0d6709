package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestConvertToDescriptor runs the command with OUT /dev/fd/1, standard output being a
// regular file, and /dev/fd/3, a descriptor it inherits: the bytes reach the file, which
// stays the same file. (Standard output a pipe is testdata/script/convert_out_stream.txt.)
func TestConvertToDescriptor(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/fd")
	}
	if _, err := os.Stat("/dev/fd/1"); err != nil {
		t.Skip("no /dev/fd here")
	}
	const (
		in = fixtures + "f32_20x300.npy"
		to = "bf16[20,300]{1,0:T(8,128)(2,1)}"
	)
	want := readFile(t, fixtures+"f32_20x300.bf16.T8x128_2x1.bin")
	var stderr bytes.Buffer
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("kept: ")
	before, _ := f.Stat()
	cmd := exec.Command(os.Args[0], "convert", in, "/dev/fd/1", "--to", to)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("OUT /dev/fd/1 to a file: %v; stderr %s", err, stderr.String())
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
	cmd = exec.Command(os.Args[0], "convert", in, "/dev/fd/3", "--to", to)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	cmd.ExtraFiles, cmd.Stderr = []*os.File{g}, &stderr
	if out, err := cmd.Output(); err != nil || string(out) != to+"\n" {
		t.Fatalf("OUT /dev/fd/3: %v, stdout %q; stderr %s", err, out, stderr.String())
	}
	if got := readFile(t, g.Name()); !bytes.Equal(got, want) {
		t.Errorf("descriptor 3's file holds %d bytes, want the %d of the image", len(got), len(want))
	}
}
