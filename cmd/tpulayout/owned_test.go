package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestForceReplacesOnlyOurs: --force replaced any directory holding a file named
// manifest.json (a web project's, a sharded conversion's); it may replace only what
// --all wrote, naming the first foreign entry otherwise, and leaves the rest as it was.
func TestForceReplacesOnlyOurs(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "model.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 1)}}, nil); err != nil {
		t.Fatal(err)
	}
	all := []string{"convert", ckpt, "", "--all", "--to", "tpu:v5e", "--force"}
	with := func(out string) []string { a := append([]string{}, all...); a[2] = out; return a }

	web := filepath.Join(dir, "web")
	testfiles.Tree(t, web, map[string]string{"manifest.json": `{"manifest_version": 3}`, "notes.txt": "keep"})
	testfiles.Tree(t, filepath.Join(web, "src"), map[string]string{"main.js": "keep"})
	wantUsageError(t, with(web), "--all did not write")

	sharded := filepath.Join(dir, "sharded")
	mustRun(t, "convert", ckpt, sharded, "--mesh", "d=2", "--spec", "P()", "--to", "tpu:v5e")
	wantUsageError(t, with(sharded), "sharded conversion's directory")

	ours := filepath.Join(dir, "ours")
	mustRun(t, with(ours)...)
	testfiles.Tree(t, ours, map[string]string{"results.csv": "not ours"})
	wantUsageError(t, with(ours), `holds results.csv, which its manifest.json does not list`)
	os.Remove(filepath.Join(ours, "results.csv"))
	os.Mkdir(filepath.Join(ours, "sub"), 0o755)
	wantUsageError(t, with(ours), `holds sub, which`)
	os.Remove(filepath.Join(ours, "sub"))
	mustRun(t, with(ours)...) // exactly what --all wrote: replaced

	// An --all manifest from before the format key is still ours.
	m := string(readFile(t, filepath.Join(ours, "manifest.json")))
	writeText(t, filepath.Join(ours, "manifest.json"), strings.Replace(m, `"format": "tpulayout-all-1",`, "", 1))
	mustRun(t, with(ours)...)
	if !strings.Contains(string(readFile(t, filepath.Join(ours, "manifest.json"))), `"format": "tpulayout-all-1"`) {
		t.Error("the manifest of --all names no format")
	}

	for _, d := range []string{web, filepath.Join(web, "src")} {
		for _, n := range testfiles.DirNames(t, d) {
			if n == "w.bin" {
				t.Errorf("%s was replaced by the conversion", d)
			}
		}
	}
	if got := treeFiles(t, web); len(got) != 3 || string(got["notes.txt"]) != "keep" {
		t.Errorf("web project changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(sharded, "manifest.json")); err != nil {
		t.Errorf("sharded OUTDIR changed: %v", err)
	}
}

// TestAllOutIsFileWithSlash: OUT "afile/" was found only at the final rename, after
// converting everything.
func TestAllOutIsFileWithSlash(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "model.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 1)}}, nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "afile")
	writeText(t, file, "a file")
	for _, force := range []bool{false, true} {
		args := []string{"convert", ckpt, file + "/", "--all", "--to", "tpu:v5e"}
		if force {
			args = append(args, "--force")
		}
		_, errOut, code := runCmd(t, args...)
		if code != 2 || !strings.Contains(errOut, "not a directory") || strings.Contains(errOut, "rename") {
			t.Errorf("%q: exit %d, %q; want exit 2 saying not a directory before any work", args, code, errOut)
		}
	}
	if names := testfiles.DirNames(t, dir); len(names) != 2 {
		t.Errorf("left %q", names)
	}
}
