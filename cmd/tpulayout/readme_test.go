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

// TestREADME runs the transcripts of README.md and of every guide in docs/*.md: each
// file's ```console blocks, in order, as one session of its own from a scratch copy of
// the checkout's root (symlinks to its files), with freshly built tpulayout and
// relayout-bench first on PATH. Each "$ " line (with "\" continuation lines) is a
// command run by bash; the lines after it, up to the next command or the block's end,
// are its output, stdout and stderr together as a terminal shows them. They must match
// exactly, except for a command marked "# varies…" (speed, dates, versions), whose
// output is shown but not compared. A command may fail only when its shown output says
// why. "cd DIR" moves the session. Across the files, every verb is shown at work.
//
// After a deliberate change to what the commands print, refresh the files with
//
//	go test ./cmd/tpulayout -run TestREADME -update
//
// which rewrites the shown outputs from real runs (marked ones are left as they are).
// One file alone: -run 'TestREADME/docs/converting.md'.
func TestREADME(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if readmeTagged {
		t.Skip("the commands are built without this run's purego or race tag: the untagged run covers them")
	}
	root := absPath(t, "../..")
	files, err := transcriptFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/tpulayout", "./cmd/relayout-bench")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ran, done := map[string]bool{}, 0
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			for _, c := range runTranscript(t, root, rel, bin) {
				for _, m := range verbUse.FindAllStringSubmatch(c.text, -1) {
					ran[m[1]] = true
				}
			}
			if !t.Failed() {
				done++
			}
		})
	}
	if done < len(files) {
		return // a file failed or was filtered out by -run: the verbs' count would mislead
	}
	for _, v := range verbs {
		if !ran[v.name] {
			t.Errorf("the transcripts of README.md and docs/*.md never run tpulayout %s", v.name)
		}
	}
}

// transcriptFiles lists README.md and the guides in docs/, relative to root.
func transcriptFiles(root string) ([]string, error) {
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files := []string{"README.md"}
	for _, g := range guides {
		rel, err := filepath.Rel(root, g)
		if err != nil {
			return nil, err
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files, nil
}

// runTranscript runs the console blocks of the file rel (under root) as one session in
// a scratch copy of root, checks their outputs (or rewrites them with -update), and
// returns the commands it ran.
func runTranscript(t *testing.T, root, rel, bin string) []*transcriptCmd {
	path := filepath.Join(root, filepath.FromSlash(rel))
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	cmds := parseTranscript(lines)
	if len(cmds) == 0 {
		if rel == "README.md" {
			t.Fatal("README.md has no ```console transcripts")
		}
		return nil
	}
	work := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // the checkout's files, without what the transcripts make
		if n := e.Name(); n != ".git" && n != "example" && n != ".venv" {
			if err := os.Symlink(filepath.Join(root, n), filepath.Join(work, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TZ=UTC", "LC_ALL=C", "COLUMNS=80", "NO_COLOR=1")

	cwd := work
	// -update's rewrite: new output lines inserted before a line of the file, old ones skipped.
	inserts, skipped := map[int][]string{}, map[int]bool{}
	for _, c := range cmds {
		if dir, ok := strings.CutPrefix(c.text, "cd "); ok && !strings.ContainsAny(dir, ";&|") {
			cwd = filepath.Join(cwd, strings.TrimSpace(dir))
			continue
		}
		got, code, err := runShell(c.text, cwd, env)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", rel, c.line, c.text, err)
		}
		if code != 0 && len(c.want) == 0 {
			t.Errorf("%s:%d: %s: exit status %d and no output shown:\n%s", rel, c.line, c.text, code, got)
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
		t.Errorf("%s:%d: %s\n--- shown\n%s\n--- printed (exit %d)\n%s\n(refresh with: go test ./cmd/tpulayout -run TestREADME -update)",
			rel, c.line, c.text, strings.Join(c.want, "\n"), code, strings.Join(gotLines, "\n"))
	}
	if len(inserts) > 0 {
		rewrite(t, path, lines, inserts, skipped)
	}
	return cmds
}

// rewrite writes lines to path with the lines of inserts put before the lines they are
// keyed by and the skipped ones left out.
func rewrite(t *testing.T, path string, lines []string, inserts map[int][]string, skipped map[int]bool) {
	var out []string
	for i, l := range lines {
		out = append(out, inserts[i]...)
		if !skipped[i] {
			out = append(out, l)
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote outputs in %s", path)
}

var verbUse = regexp.MustCompile(`(?:^|[;&|(]\s*|\bdo\s+)tpulayout\s+([a-z]+)`)

// transcriptCmd is one command of a transcript and the output shown after it.
type transcriptCmd struct {
	line   int // 1-based line of the "$ " in its file
	text   string
	varies bool
	want   []string
	// the lines of the shown output in its file: [first, end)
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
