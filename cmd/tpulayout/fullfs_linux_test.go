package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestFullFileSystem converts into a 1 MiB tmpfs: each form of convert exits 2 saying
// "no space left" and naming OUT, and leaves nothing in the file system. Mounting
// needs root (CI runs as root); elsewhere the test is skipped.
func TestFullFileSystem(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a 1 MiB tmpfs")
	}
	full := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", full, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(full, 0) })

	dir := t.TempDir()
	raw := filepath.Join(dir, "in.raw")
	in := filepath.Join(dir, "in.safetensors")
	buf := testfiles.RandomBuffer(t, "f32[1024,1024]", 3) // 4 MiB
	if err := os.WriteFile(raw, buf.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.Write(in, []safetensors.NamedBuffer{{Name: "w", Buf: buf}}, nil); err != nil {
		t.Fatal(err)
	}
	savedFree := freeDiskSpace
	defer func() { freeDiskSpace = savedFree }()
	for _, c := range []struct {
		name    string
		out     string
		args    []string
		noCheck bool // skip the free-space check before writing: the write itself fails
	}{
		{"file", "out.bin", []string{"convert", raw, "", "--from", "f32[1024,1024]", "--to", "tpu:v5e"}, false},
		{"file, write fails", "out.bin", []string{"convert", raw, "", "--from", "f32[1024,1024]", "--to", "tpu:v5e"}, true},
		{"all", "images", []string{"convert", in, "", "--all", "--to", "tpu:v5e"}, false},
		{"all, write fails", "images", []string{"convert", in, "", "--all", "--to", "tpu:v5e"}, true},
		{"sharded", "shards", []string{"convert", in, "", "--mesh", "d=2", "--spec", "P()", "--to", "tpu:v5e"}, false},
	} {
		freeDiskSpace = savedFree
		if c.noCheck {
			freeDiskSpace = func(string) (int64, bool) { return 0, false }
		}
		out := filepath.Join(full, c.out)
		args := append([]string{}, c.args...)
		args[2] = out
		_, errOut, code := runCmd(t, args...)
		if code != 2 || !strings.Contains(errOut, "no space left") || !strings.Contains(errOut, "OUT "+out) {
			t.Errorf("%s: exit %d, stderr %q; want 2, \"no space left\" and OUT %s", c.name, code, errOut, out)
		}
		if left := treeSums(t, full); len(left) > 0 {
			t.Errorf("%s: left %q", c.name, left)
		}
		if names := testfiles.DirNames(t, full); len(names) > 0 {
			t.Errorf("%s: left %q", c.name, names)
		}
	}
}
