package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardVerbsProgress: manifest merge, verify and gather report progress on stderr
// with --progress (where stderr is not a terminal: whole lines, ending at 100%), never
// on stdout; without it and without a terminal, nothing.
func TestShardVerbsProgress(t *testing.T) {
	var prog bytes.Buffer
	saved := progressOut
	progressOut = &prog
	defer func() { progressOut = saved }()
	dir := shardCheckpoint(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, p := range []string{"0/2", "1/2"} {
		mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), out, "--all", "--mesh", "data=2,model=2",
			"--rules", filepath.Join(dir, "rules.json"), "--to", "tpu:v5e", "--process", p)
	}
	gathered := filepath.Join(t.TempDir(), "g.safetensors")
	for _, c := range []struct {
		args  []string
		label string
	}{
		{[]string{"manifest", "merge", out}, "manifest merge"},
		{[]string{"verify", out}, "verify"},
		{[]string{"gather", out, gathered}, "gather"},
	} {
		prog.Reset()
		plain := mustRun(t, c.args...)
		if prog.Len() != 0 {
			t.Errorf("%s without --progress drew %q", c.label, prog.String())
		}
		if c.label == "manifest merge" {
			continue // merged now; merged again below is refused
		}
		got := mustRun(t, append(c.args, "--progress")...)
		p := prog.String()
		lines := strings.Split(strings.TrimSuffix(p, "\n"), "\n")
		if got != plain || strings.Contains(got, c.label+":") || strings.Contains(p, "\r") || len(lines) < 2 ||
			!strings.HasPrefix(p, c.label+": ") || !strings.HasSuffix(p, "(100%)\n") {
			t.Errorf("%s --progress: stdout %q (without: %q), stderr %q", c.label, got, plain, p)
		}
	}
	// A merge with --progress, on a fresh split run.
	out2 := filepath.Join(t.TempDir(), "out")
	for _, p := range []string{"0/2", "1/2"} {
		mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), out2, "--all", "--mesh", "data=2,model=2",
			"--rules", filepath.Join(dir, "rules.json"), "--to", "tpu:v5e", "--process", p)
	}
	prog.Reset()
	mustRun(t, "manifest", "merge", out2, "--progress")
	if p := prog.String(); !strings.HasPrefix(p, "manifest merge: ") || !strings.HasSuffix(p, "(100%)\n") || strings.Count(p, "\n") < 2 {
		t.Errorf("manifest merge --progress: stderr %q", p)
	}
}
