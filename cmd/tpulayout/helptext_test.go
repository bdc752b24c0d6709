package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/cmd/internal/flagtext"
	"github.com/tpulayout/tpulayout/tpu"
)

// The rules every help text keeps, over the table of verbs: a scenario pins each
// text's words (testdata/script/help*.txt), these hold for any verb added.

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

// TestFlagStyle: help lists flags as the prose writes them (--name); the suggestions for
// typos are scenarios (testdata/script/usage_errors_dispatch.txt).
func TestFlagStyle(t *testing.T) {
	for _, v := range verbs {
		out, _, code := runCmd(t, v.name, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", v.name, code)
		}
		_, flags, _ := strings.Cut(out, "\nFlags:\n")
		for _, line := range strings.Split(flags, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
				t.Errorf("%s --help lists a flag with one dash: %q", v.name, line)
			}
		}
	}
}

// TestGenerationsInHelp: the usage lists every TPU generation, and so does the help of
// each verb that takes one; explain, which takes none, lists none.
func TestGenerationsInHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "convert"}, {"help", "validate"}, {"help", "info"}, {"help", "hlo"}, {"help", "blockspec"}} {
		out := mustRun(t, args...)
		for _, g := range tpu.Generations() {
			if !strings.Contains(out, " "+g.String()+",") && !strings.Contains(out, " "+g.String()+".") {
				t.Errorf("%s does not list generation %s:\n%s", strings.Join(args, " "), g, out)
			}
		}
	}
	if out := mustRun(t, "help", "explain"); strings.Contains(out, "generations") {
		t.Errorf("help explain lists generations, but explain takes none:\n%s", out)
	}
}
