package sharding

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/convert"
)

// TestGatherFileTemps: GatherFile tells the Outdir's Temps of the temporary file it
// writes OUT through, so that a command can remove it on a signal, and of its end.
func TestGatherFileTemps(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "w.safetensors")
	data, err := os.ReadFile(filepath.Join(fixtureDir, "mesh2d_both.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := Convert(ConvertOptions{Checkpoint: src, Out: out, Mesh: "data=2,model=4",
		Spec: `P("data", "model")`, To: "tpu:v5e"}); err != nil {
		t.Fatal(err)
	}
	o, err := OpenOutdir(out)
	if err != nil {
		t.Fatal(err)
	}
	var tracked, untracked []string
	o.Temps = convert.TempFuncs{
		TrackFn:   func(p string) { tracked = append(tracked, p) },
		UntrackFn: func(p string) { untracked = append(untracked, p) },
	}
	file := filepath.Join(dir, "g.safetensors")
	if _, err := o.GatherFile(file, nil); err != nil {
		t.Fatal(err)
	}
	if len(tracked) != 1 || filepath.Dir(tracked[0]) != dir || !strings.Contains(filepath.Base(tracked[0]), "g.safetensors") {
		t.Fatalf("tracked %q, want the one temporary file beside %s", tracked, file)
	}
	if len(untracked) != 1 || untracked[0] != tracked[0] {
		t.Errorf("untracked %q, want %q", untracked, tracked)
	}
}
