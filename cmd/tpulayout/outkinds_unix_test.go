//go:build unix

package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
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

// TestMergeManifestLink: a manifest.json that is there before the merge (a symbolic
// link, say) is not the merge's to replace: it is refused as a foreign entry.
func TestMergeManifestLink(t *testing.T) {
	dir := shardCheckpoint(t)
	out := fourProcesses(t, filepath.Join(dir, "model.safetensors"), nil)
	elsewhere := filepath.Join(t.TempDir(), "keep.json")
	writeText(t, elsewhere, "keep")
	if err := os.Symlink(elsewhere, filepath.Join(out, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"manifest", "merge", out}, "holds manifest.json, which no partial manifest lists")
	if string(readFile(t, elsewhere)) != "keep" {
		t.Error("merge wrote through the link")
	}
}

// TestShardedOutLink: a one-process sharded conversion into a symbolic link to an
// empty directory removed the link and put a directory in its place, leaving the
// target empty; it writes the target, and the link stays.
func TestShardedOutLink(t *testing.T) {
	dir := shardCheckpoint(t)
	d := t.TempDir()
	target, link := filepath.Join(d, "target"), filepath.Join(d, "link")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), link, "--all", "--mesh", "d=2", "--spec", "P()", "--to", "tpu:v5e")
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link %s was replaced (%v)", link, err)
	}
	if _, err := os.Stat(filepath.Join(target, "manifest.json")); err != nil {
		t.Errorf("the link's target holds no manifest: %v", err)
	}
	if names := testfiles.DirNames(t, d); len(names) != 2 {
		t.Errorf("beside OUT: %q", names)
	}
}
