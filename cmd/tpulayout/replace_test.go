package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestConvertAllForce replaces an earlier --all output with --force, and refuses what
// --force must not replace.
func TestConvertAllForce(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "model.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{
		{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 1)}, {Name: "b", Buf: testfiles.RandomBuffer(t, "f32[256]", 2)},
	}, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "images")
	mustRun(t, "convert", ckpt, out, "--all", "--to", "tpu:v5e")
	wantUsageError(t, []string{"convert", ckpt, out, "--all", "--to", "tpu:v5e", "--dtype", "bf16"}, "not empty", "--force")
	// A file the manifest does not list is not --force's to remove (TestForceReplacesOnlyOurs).
	testfiles.Tree(t, out, map[string]string{"stale.bin": "from an older run"})
	wantUsageError(t, []string{"convert", ckpt, out, "--all", "--to", "tpu:v5e", "--dtype", "bf16", "--force"}, "holds stale.bin")
	os.Remove(filepath.Join(out, "stale.bin"))

	got := mustRun(t, "convert", ckpt, out, "--all", "--to", "tpu:v5e", "--dtype", "bf16", "--force")
	if !strings.Contains(got, "bf16[16,256]{1,0:T(8,128)(2,1)}") {
		t.Errorf("--force printed:\n%s", got)
	}
	var m convert.Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &m); err != nil || m.Tensors[0].Layout[:4] != "bf16" {
		t.Errorf("manifest after --force: %+v, %v", m, err)
	}
	if names := testfiles.DirNames(t, out); strings.Join(names, " ") != "b.bin manifest.json w.bin" {
		t.Errorf("OUT after --force holds %q", names)
	}
	if names := testfiles.DirNames(t, dir); strings.Join(names, " ") != "images model.safetensors" {
		t.Errorf("--force left %q beside OUT", names)
	}
	// --force into a missing or an empty directory is a plain --all.
	for _, o := range []string{filepath.Join(dir, "new"), filepath.Join(dir, "empty")} {
		if strings.HasSuffix(o, "empty") {
			os.Mkdir(o, 0o755)
		}
		mustRun(t, "convert", ckpt, o, "--all", "--to", "tpu:v5e", "--force")
		if names := testfiles.DirNames(t, o); len(names) != 3 {
			t.Errorf("--force into %s wrote %q", o, names)
		}
	}

	// What --force refuses, leaving it as it was.
	other := filepath.Join(dir, "home")
	testfiles.Tree(t, other, map[string]string{"notes.txt": "keep me"})
	file := filepath.Join(dir, "file.bin")
	testfiles.Tree(t, dir, map[string]string{"file.bin": "a file"})
	inner := filepath.Join(out, "model.safetensors")
	if err := os.WriteFile(inner, readFile(t, ckpt), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(out, link); err != nil {
		if runtime.GOOS != "windows" {
			t.Fatal(err)
		}
		link = file // no symbolic links without privileges: check the file case twice
	}
	before := testfiles.TreeOf(t, out)
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"convert", ckpt, other, "--all", "--to", "tpu:v5e", "--force"}, []string{"has no manifest.json"}},
		{[]string{"convert", ckpt, file, "--all", "--to", "tpu:v5e", "--force"}, []string{"is a file"}},
		{[]string{"convert", inner, out, "--all", "--to", "tpu:v5e", "--force"}, []string{"lies inside OUT"}},
		{[]string{"convert", ckpt, filepath.Join(dir, "x.bin"), "--to", "tpu:v5e", "--force"}, []string{"--force replaces the OUT directory of --all"}},
	} {
		wantUsageError(t, c.args, c.wants...)
	}
	if got := testfiles.TreeOf(t, other); got["notes.txt"] != "keep me" || len(got) != 1 {
		t.Errorf("a refused --force changed %s: %q", other, got)
	}
	if got := testfiles.TreeOf(t, out); len(got) != len(before) {
		t.Errorf("a refused --force changed %s", out)
	}
	if link == file {
		return
	}
	os.Remove(inner) // not --all's: --force would refuse OUT (TestForceReplacesOnlyOurs)
	// Through a symbolic link --force replaces the link's target, and the link stays.
	if code := run([]string{"convert", ckpt, link, "--all", "--to", "tpu:v5e", "--force"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("--force through a symbolic link: exit %d", code)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--force through %s replaced the link itself", link)
	}
	if got := testfiles.TreeOf(t, out); got["manifest.json"] == "" || got["w.bin"] == "" {
		t.Errorf("--force through a link did not replace its target %s: %q", out, got)
	}
}
