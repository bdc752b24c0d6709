package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/cmd/internal/flagtext"
)

// allHelp is every help text: the command's, each verb's, and a bare tpulayout's.
func allHelp(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{"help": mustRun(t, "help")}
	for _, v := range verbs {
		texts["help "+v.name] = mustRun(t, "help", v.name)
	}
	_, texts["(bare)"], _ = runCmd(t)
	return texts
}

// TestHelpWidth: no line of any help is wider than 80 columns (a tab counting to the
// next multiple of 8), and no line but a table's ends far short of that while the next
// line's first word would have fit on it (ragged filling).
func TestHelpWidth(t *testing.T) {
	for what, text := range allHelp(t) {
		lines := strings.Split(text, "\n")
		for i, line := range lines {
			if n := flagtext.Columns(line); n > helpWidth {
				t.Errorf("tpulayout %s: line %d is %d columns wide: %q", what, i+1, n, line)
			}
		}
	}
}

// TestHelpRagged: each paragraph of a verb's help is filled, so that the first word
// of each of its lines would not have fitted on the line before.
func TestHelpRagged(t *testing.T) {
	for _, v := range verbs {
		out := mustRun(t, "help", v.name)
		detail, _, _ := strings.Cut(out, "\nFlags:\n")
		lines := strings.Split(detail, "\n")
		for i := 1; i < len(lines); i++ {
			prev, line := lines[i-1], lines[i]
			if prev == "" || line == "" || line[0] == ' ' || prev[0] == ' ' || strings.HasPrefix(prev, "Usage:") {
				continue
			}
			if first := strings.Fields(line)[0]; flagtext.Columns(prev)+1+len(first) <= helpWidth {
				t.Errorf("help %s: %q would fit after %q", v.name, first, prev)
			}
		}
	}
}

// TestFlagMetavars: every flag that takes a value names it in capitals (--spec SPEC),
// never by its Go type (--spec string).
func TestFlagMetavars(t *testing.T) {
	for _, v := range verbs {
		fs, _ := newFlagSet(v)
		fs.VisitAll(func(f *flag.Flag) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				return
			}
			name, _ := flag.UnquoteUsage(f)
			if name == "" || strings.ToLower(name) == name {
				t.Errorf("%s --%s: its value is shown as %q, not a name in capitals", v.name, f.Name, name)
			}
		})
		out := mustRun(t, "help", v.name)
		for _, typ := range []string{" string\n", " int\n", " value\n", " float\n", " duration\n", " uint\n"} {
			if strings.Contains(out, typ) {
				t.Errorf("help %s shows a flag's value as %q", v.name, strings.TrimSpace(typ))
			}
		}
	}
}

// TestBareUsage: tpulayout without a verb prints a short usage, the verbs by job, on
// stderr, and exits 2; help leads with converting and sharding.
func TestBareUsage(t *testing.T) {
	out, errOut, code := runCmd(t)
	if code != exitUsage || out != "" {
		t.Errorf("tpulayout: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"Usage: tpulayout VERB", "Convert and shard:", "Validate:", "Inspect layouts:", "Benchmark:", "tpulayout help"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("tpulayout: stderr lacks %q:\n%s", want, errOut)
		}
	}
	for _, v := range verbs {
		if !strings.Contains(errOut, v.name) {
			t.Errorf("tpulayout: stderr lacks the verb %s:\n%s", v.name, errOut)
		}
	}
	if n := strings.Count(errOut, "\n"); n > 15 {
		t.Errorf("tpulayout: %d lines, want a short usage:\n%s", n, errOut)
	}
	help := mustRun(t, "help")
	first := strings.SplitN(help, "\n\n", 2)[0]
	for _, want := range []string{"converts", "shard", "s3://", "gs://", "model.safetensors.index.json"} {
		if !strings.Contains(first, want) {
			t.Errorf("help's first paragraph lacks %q:\n%s", want, first)
		}
	}
	if i, j := strings.Index(help, "Convert and shard:"), strings.Index(help, "Inspect layouts:"); i < 0 || j < i {
		t.Errorf("help does not list converting and sharding first:\n%s", help)
	}
}

// TestGroupsCoverVerbs: each verb is in exactly one group of the usage.
func TestGroupsCoverVerbs(t *testing.T) {
	seen := map[string]int{}
	for _, g := range verbGroups {
		for _, name := range g.verbs {
			seen[name]++
		}
	}
	for _, name := range verbList() {
		if seen[name] != 1 {
			t.Errorf("verb %s is in %d groups of the usage", name, seen[name])
		}
	}
	if len(seen) != len(verbList()) {
		t.Errorf("the groups name %d verbs, the table has %d", len(seen), len(verbList()))
	}
}

// TestConvertHelpSharding: convert's help says how to shard: the usage line, the rules
// file's format, OUTDIR's layout, buckets and a sharded checkpoint's index.
func TestConvertHelpSharding(t *testing.T) {
	out := mustRun(t, "convert", "--help")
	for _, want := range []string{
		"tpulayout convert CKPT OUTDIR --mesh MESH --spec SPEC|--rules FILE",
		`{"rules": [{"match":`, `"default":`,
		"OUTDIR/manifest.json", ".bin",
		"s3://", "gs://", "model.safetensors.index.json",
		"--spec SPEC", "--force",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("convert --help lacks %q:\n%s", want, out)
		}
	}
}

// TestSpecAndRules: --spec with --rules says they exclude each other.
func TestSpecAndRules(t *testing.T) {
	dir := shardCheckpoint(t)
	wantUsageError(t, []string{"convert", dir + "/model.safetensors", t.TempDir() + "/o", "--all", "--mesh", "data=2,model=2",
		"--spec", "P()", "--rules", dir + "/rules.json", "--to", "tpu:v5e"}, "--spec and --rules exclude each other")
}

// TestToGenerationAlone: --to v5e suggests tpu:v5e.
func TestToGenerationAlone(t *testing.T) {
	_, errOut, code := runCmd(t, "convert", fixtures+"f32_20x300.npy", t.TempDir()+"/o.bin", "--to", "v5e")
	if code != exitUsage || !strings.Contains(errOut, `unknown primitive type "v5e"`) || !strings.Contains(errOut, "did you mean tpu:v5e?") {
		t.Errorf("--to v5e: exit %d, %q", code, errOut)
	}
}
