package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestShardForce: a sharded OUTDIR is replaced by --force when a sharded conversion
// wrote it (its manifest lists everything there), with nothing left beside it; without
// --force, or when OUTDIR holds anything its manifest does not list, it is refused
// and left as it was.
func TestShardForce(t *testing.T) {
	dir := shardCheckpoint(t)
	in := filepath.Join(dir, "model.safetensors")
	rules := filepath.Join(dir, "rules.json")
	work := t.TempDir()
	out, fresh := filepath.Join(work, "out"), filepath.Join(t.TempDir(), "fresh")
	conv := func(o string, extra ...string) []string {
		return append([]string{"convert", in, o, "--all", "--mesh", "data=2,model=2", "--to", "tpu:v5e"}, extra...)
	}
	mustRun(t, conv(out, "--spec", "P()")...)
	wantUsageError(t, conv(out, "--rules", rules), "not empty", "--force replaces one that a sharded conversion wrote")

	// The replacement equals a conversion into a new directory.
	mustRun(t, conv(out, "--rules", rules, "--force")...)
	mustRun(t, conv(fresh, "--rules", rules)...)
	got, want := treeFiles(t, out), treeFiles(t, fresh)
	delete(got, "manifest.json")
	delete(want, "manifest.json")
	if !maps.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("--force left %d files, a fresh conversion writes %d", len(got), len(want))
	}
	if names := testfiles.DirNames(t, work); len(names) != 1 {
		t.Errorf("--force left %q beside OUTDIR", names)
	}
	mustRun(t, conv(out, "--spec", "P()", "--force")...) // again, onto its own tree

	// What the tool did not write is not --force's to remove.
	before := treeFiles(t, out)
	writeText(t, filepath.Join(out, "notes.txt"), "mine")
	wantUsageError(t, conv(out, "--spec", "P()", "--force"), "notes.txt")
	os.Remove(filepath.Join(out, "notes.txt"))
	for _, sub := range []string{"norm", "layers.0.mlp.w1"} {
		if _, err := os.Stat(filepath.Join(out, sub)); err == nil {
			writeText(t, filepath.Join(out, sub, "extra.bin"), "x")
			wantUsageError(t, conv(out, "--spec", "P()", "--force"), "extra.bin")
			os.Remove(filepath.Join(out, sub, "extra.bin"))
		}
	}
	if !maps.EqualFunc(treeFiles(t, out), before, bytes.Equal) {
		t.Errorf("a refused --force changed OUTDIR")
	}
	other := filepath.Join(work, "other")
	os.Mkdir(other, 0o755)
	writeText(t, filepath.Join(other, "a.txt"), "a")
	wantUsageError(t, conv(other, "--spec", "P()", "--force"), "manifest.json")
	allOut := filepath.Join(work, "all")
	mustRun(t, "convert", in, allOut, "--all", "--to", "tpu:v5e")
	wantUsageError(t, conv(allOut, "--spec", "P()", "--force"), "manifest.json")
	if _, err := os.Stat(filepath.Join(other, "a.txt")); err != nil {
		t.Errorf("a refused --force removed %s: %v", other, err)
	}
}
