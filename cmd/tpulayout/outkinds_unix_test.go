//go:build unix

package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestGatherOutKinds: gather's OUT keeps convert's rules. A symbolic link was replaced
// by a file; a FIFO or /dev/stdout was refused ("not a regular file") or, by name,
// not .safetensors.
func TestGatherOutKinds(t *testing.T) {
	dir := shardCheckpoint(t)
	images := filepath.Join(t.TempDir(), "images")
	mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), images, "--all", "--mesh", "d=2", "--spec", "P()", "--to", "tpu:v5e")
	plain := filepath.Join(t.TempDir(), "plain.safetensors")
	mustRun(t, "gather", images, plain)
	want := readFile(t, plain)

	// A symlink: written at its target, and stays a link.
	d := t.TempDir()
	target, link := filepath.Join(d, "target.safetensors"), filepath.Join(d, "link.safetensors")
	writeText(t, target, "old")
	if err := os.Symlink("target.safetensors", link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "gather", images, link)
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("gather replaced the link %s (%v)", link, err)
	}
	if !bytes.Equal(readFile(t, target), want) {
		t.Error("the link's target does not hold the gathered file")
	}

	// A FIFO: streamed into, stays a FIFO.
	fifo := filepath.Join(d, "pipe")
	got := readFIFO(t, fifo)
	mustRun(t, "gather", images, fifo)
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("the FIFO carried %d bytes, want %d", len(b), len(want))
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("OUT is no longer a FIFO (%v)", err)
	}

	// /dev/stdout: the file alone on standard output.
	img := setStreamOut(t)
	out, _, code := runCmd(t, "gather", images, "/dev/stdout")
	if code != 0 || out != "" || !bytes.Equal(img.Bytes(), want) {
		t.Errorf("gather to /dev/stdout: exit %d, report %q, %d bytes streamed, want %d", code, out, img.Len(), len(want))
	}
}
