package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "-" is standard input wherever a file is read (issue 44.9: hlo - and --rules - were
// files named "-" while convert - read standard input).
func TestDashIsStdin(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "example", dir)
	saved := stdin
	defer func() { stdin = saved }()
	feed := func(name string) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		stdin = bytes.NewReader(b)
	}
	module := filepath.Join(dir, "module.txt")
	feed("module.txt")
	if a, b := mustRun(t, "hlo", "-"), mustRun(t, "hlo", module); a != b || a == "" {
		t.Errorf("hlo - printed %q, hlo of the file %q", a, b)
	}
	stdin = strings.NewReader("not hlo")
	if _, errOut, code := runCmd(t, "hlo", "-"); code != exitUsage || !strings.Contains(errOut, "- (standard input): line 1") {
		t.Errorf("hlo - of bad text: exit %d, %q", code, errOut)
	}
	ckpt := filepath.Join(dir, "model.safetensors")
	args := func(out, rules string) []string {
		return []string{"convert", ckpt, filepath.Join(dir, out), "--all", "--mesh", "data=2,model=2", "--rules", rules, "--to", "tpu:v5e"}
	}
	feed("rules.json")
	mustRun(t, args("a", "-")...)
	mustRun(t, args("b", filepath.Join(dir, "rules.json"))...)
	a, _ := os.ReadFile(filepath.Join(dir, "a", "manifest.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "b", "manifest.json"))
	if len(a) == 0 || !bytes.Equal(bytes.ReplaceAll(a, []byte(`"a"`), nil), bytes.ReplaceAll(b, []byte(`"b"`), nil)) {
		t.Errorf("--rules - made another manifest than --rules FILE:\n%s\n%s", a, b)
	}
	stdin = strings.NewReader("")
	if _, errOut, code := runCmd(t, args("c", "-")...); code != exitUsage || !strings.Contains(errOut, "--rules - (standard input) is empty") {
		t.Errorf("--rules - of nothing: exit %d, %q", code, errOut)
	}
}
