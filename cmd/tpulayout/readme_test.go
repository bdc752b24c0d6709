package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestREADME runs the README's transcripts: every ```console block of README.md, in
// order, as one session from a scratch copy of the checkout's root (symlinks to its
// files), with freshly built tpulayout and relayout-bench first on PATH. Each "$ "
// line (with "\" continuation lines) is a command run by bash; the lines after it, up
// to the next command or the block's end, are its output, stdout and stderr together
// as a terminal shows them. They must match exactly, except for a command marked
// "# varies…" (speed, dates, versions), whose output is shown but not compared. A
// command may fail only when its shown output says why. "cd DIR" moves the session.
//
// After a deliberate change to what the commands print, refresh the README with
//
//	go test ./cmd/tpulayout -run TestREADME -update
//
// which rewrites the shown outputs from real runs (marked ones are left as they are).
func TestREADME(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if readmeTagged {
		t.Skip("the commands are built without this run's purego or race tag: the untagged run covers them")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(root, "README.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	cmds := parseTranscript(lines)
	if len(cmds) == 0 {
		t.Fatal("README.md has no ```console transcripts")
	}

	work := t.TempDir()
	bin := filepath.Join(work, ".bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/tpulayout", "./cmd/relayout-bench")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // the checkout's files, without what the README makes
		if n := e.Name(); n != ".git" && n != "example" && n != ".venv" {
			if err := os.Symlink(filepath.Join(root, n), filepath.Join(work, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TZ=UTC", "LC_ALL=C", "COLUMNS=80", "NO_COLOR=1")

	cwd := work
	// -update's rewrite: new output lines inserted before a README line, old ones skipped.
	inserts, skipped := map[int][]string{}, map[int]bool{}
	for _, c := range cmds {
		if dir, ok := strings.CutPrefix(c.text, "cd "); ok && !strings.ContainsAny(dir, ";&|") {
			cwd = filepath.Join(cwd, strings.TrimSpace(dir))
			continue
		}
		got, code, err := runShell(c.text, cwd, env)
		if err != nil {
			t.Fatalf("README.md:%d: %s: %v", c.line, c.text, err)
		}
		if code != 0 && len(c.want) == 0 {
			t.Errorf("README.md:%d: %s: exit status %d and no output shown:\n%s", c.line, c.text, code, got)
			continue
		}
		if c.varies {
			continue
		}
		gotLines := splitOutput(got)
		if strings.Join(gotLines, "\n") == strings.Join(c.want, "\n") {
			continue
		}
		if *update {
			inserts[c.first] = gotLines
			for i := c.first; i < c.end; i++ {
				skipped[i] = true
			}
			continue
		}
		t.Errorf("README.md:%d: %s\n--- shown\n%s\n--- printed (exit %d)\n%s\n(refresh with: go test ./cmd/tpulayout -run TestREADME -update)",
			c.line, c.text, strings.Join(c.want, "\n"), code, strings.Join(gotLines, "\n"))
	}
	if len(inserts) > 0 {
		var out []string
		for i, l := range lines {
			out = append(out, inserts[i]...)
			if !skipped[i] {
				out = append(out, l)
			}
		}
		tmp := readme + ".tmp"
		if err := os.WriteFile(tmp, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, readme); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote outputs in %s", readme)
	}

	// Every verb is shown at work.
	ran := map[string]bool{}
	for _, c := range cmds {
		for _, m := range verbUse.FindAllStringSubmatch(c.text, -1) {
			ran[m[1]] = true
		}
	}
	for _, v := range verbs {
		if !ran[v.name] {
			t.Errorf("README.md's transcripts never run tpulayout %s", v.name)
		}
	}
}

var verbUse = regexp.MustCompile(`(?:^|[;&|(]\s*|\bdo\s+)tpulayout\s+([a-z]+)`)

// transcriptCmd is one command of a transcript and the output shown after it.
type transcriptCmd struct {
	line   int // 1-based line of the "$ " in README.md
	text   string
	varies bool
	want   []string
	// the README lines of the shown output: [first, end)
	first, end int
}

var variesMark = regexp.MustCompile(`\s#\s*varies\b.*$`)

// parseTranscript reads the ```console blocks of lines.
func parseTranscript(lines []string) []*transcriptCmd {
	var cmds []*transcriptCmd
	in := false
	var cur *transcriptCmd
	end := func(i int) {
		if cur != nil {
			cur.end = i
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		switch {
		case !in && l == "```console":
			in = true
		case !in:
		case l == "```":
			end(i)
			in = false
		case strings.HasPrefix(l, "$ "):
			end(i)
			text, line := strings.TrimPrefix(l, "$ "), i+1
			for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
				i++
				text += "\n" + strings.TrimRight(lines[i], " \t\r")
			}
			cur = &transcriptCmd{line: line, text: text, varies: variesMark.MatchString(text), first: i + 1}
			cmds = append(cmds, cur)
		case cur != nil:
			cur.want = append(cur.want, l)
		}
	}
	return cmds
}

// runShell runs text with bash in dir; stdout and stderr share one file, so their
// lines interleave as on a terminal.
func runShell(text, dir string, env []string) (string, int, error) {
	f, err := os.CreateTemp("", "readme-out-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd := exec.Command("bash", "-c", text)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, f, f
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		return "", 0, fmt.Errorf("still running after 2 minutes")
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return "", 0, err
	}
	out, err := os.ReadFile(f.Name())
	return string(out), code, err
}

// splitOutput is output as lines without trailing blanks and without the final newline.
func splitOutput(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}
