package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompletionLists checks that both scripts name every verb and every flag of every
// verb (they are derived from the verb table, so a new flag shows up by itself), and
// that every flag with a value list is a flag of some verb.
func TestCompletionLists(t *testing.T) {
	scripts := map[string]string{"bash": mustRun(t, "completion", "bash"), "zsh": mustRun(t, "completion", "zsh")}
	all := map[string]bool{}
	for shell, s := range scripts {
		for _, v := range verbs {
			if !strings.Contains(s, v.name) {
				t.Errorf("the %s script lacks the verb %s", shell, v.name)
			}
			for _, f := range verbFlags(v) {
				all[f.name] = true
				if !strings.Contains(s, "--"+f.name+" ") && !strings.Contains(s, "'--"+f.name+"[") && !strings.Contains(s, "'--"+f.name+"=[") {
					t.Errorf("the %s script lacks %s's flag --%s", shell, v.name, f.name)
				}
			}
		}
		for _, w := range []string{"help", "--version", "v5e", "tpu", "bf16"} {
			if !strings.Contains(s, w) {
				t.Errorf("the %s script lacks %q", shell, w)
			}
		}
	}
	for name := range flagValues() {
		if !all[name] {
			t.Errorf("values are listed for --%s, which no verb has", name)
		}
	}
	if len(verbFlags(convertVerb)) < 5 {
		t.Errorf("convert's flags: %v", verbFlags(convertVerb))
	}

	wantUsageError(t, []string{"completion", "fish"}, `unknown shell "fish" (want bash or zsh)`)
	wantUsageError(t, []string{"completion"}, "missing SHELL")
	wantUsageError(t, []string{"completion", "bash", "zsh"}, `unexpected argument "zsh"`)
}

// TestCompletionBash runs the bash script's function on command lines.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "tpulayout.bash")
	if err := os.WriteFile(script, []byte(mustRun(t, "completion", "bash")), 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(line string) []string {
		t.Helper()
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c",
			`source "$1"; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; _tpulayout; printf '%s\n' "${COMPREPLY[@]}"`, "bash", script, line)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		return got
	}
	var verbNames []string
	for _, v := range verbs {
		verbNames = append(verbNames, v.name)
	}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"tpulayout ", append(slices.Clone(verbNames), "help", "--help", "--version")},
		{"tpulayout con", []string{"convert"}},
		{"tpulayout --v", []string{"--version"}},
		{"tpulayout convert --f", []string{"--force", "--from"}},
		{"tpulayout show x --r", []string{"--rows"}},
		{"tpulayout validate d --gen v5", []string{"v5e", "v5p"}},
		{"tpulayout convert a.npy b --to tpu:v5", []string{"v5e", "v5p"}}, // past the colon
		{"tpulayout convert a.npy b --to t", []string{"tpu:7x", "tpu:8i", "tpu:8t", "tpu:v2", "tpu:v3", "tpu:v4", "tpu:v5e", "tpu:v5p", "tpu:v6e"}},
		{"tpulayout convert a.npy b --view bf", []string{"bf16"}},
		{"tpulayout convert a.npy b -pad ", []string{"leave", "zero"}},
		{"tpulayout completion ", []string{"bash", "zsh"}},
		{"tpulayout help val", []string{"validate"}},
		{"tpulayout convert a.npy ", nil}, // file names, by -o default
		{"tpulayout manifest ", []string{"merge"}},
		{"tpulayout manifest m", []string{"merge"}},
		{"tpulayout manifest --q", []string{"--quick"}},
		{"tpulayout manifest merge --", []string{"--help", "--json", "--progress", "--quick"}},
		{"tpulayout manifest merge ", nil}, // OUTDIR: file names
	} {
		want := slices.Clone(c.want)
		slices.Sort(want)
		if got := complete(c.line); !slices.Equal(got, want) {
			t.Errorf("%q completes to %q, want %q", c.line, got, want)
		}
	}
	for _, v := range verbs {
		got := complete("tpulayout " + v.name + " --")
		for _, f := range verbFlags(v) {
			if !slices.Contains(got, "--"+f.name) {
				t.Errorf("tpulayout %s --<TAB> lacks --%s: %q", v.name, f.name, got)
			}
		}
	}
}

// TestCompletionZsh checks the zsh script's syntax where zsh is installed.
func TestCompletionZsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh")
	}
	script := filepath.Join(t.TempDir(), "_tpulayout")
	if err := os.WriteFile(script, []byte(mustRun(t, "completion", "zsh")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Errorf("zsh -n: %v\n%s", err, out)
	}
	// Loading it defines the function and registers it.
	out, err := exec.Command(zsh, "-f", "-c", `autoload -U compinit; compinit -u -D; source "$1"; print -r -- ${+functions[_tpulayout]} $_comps[tpulayout]`, "zsh", script).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "1 _tpulayout" {
		t.Errorf("zsh loading the script: %v, %q", err, out)
	}
}
