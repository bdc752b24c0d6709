package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// Regression tests from hostile-user QA: each names the command that went wrong.

// "tpulayout convert x.npy o.bin --to tpu:v5e --dtype c64" said "has no TPU vreg
// elements must be …": cleanErr cut "layout: " out of the middle of the sentence.
func TestQAErrorKeepsInnerLayoutWord(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "x.npy", testfiles.RandomBuffer(t, "f32[8,128]", 1))
	_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, "o.bin"), "--to", "tpu:v5e", "--dtype", "c64")
	if code != 2 || !strings.Contains(errOut, "has no TPU vreg layout: elements must be") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// "tpulayout convert model.safetensors - --all --mesh data=2 --spec 'P()' --to tpu:v5e"
// exited 0 after creating a directory named "-"; OUT - is standard output everywhere else.
func TestQAShardedStreamOut(t *testing.T) {
	in, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sharding", "replicated.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	_, errOut, code := runCmd(t, "convert", in, "-", "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e")
	if code != 2 || !strings.Contains(errOut, "cannot be one") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Errorf("a directory named - was created")
	}
}

// epipeWriter fails as os.Stdout does when its pipe's reader has gone.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// "tpulayout info 'f32[3,5]' | (exec 0<&-; sleep 1)" exited 2 with "write /dev/stdout:
// broken pipe" about half the time: the write's EPIPE won the race with the SIGPIPE
// handler that exits 141 silently, as README promises.
func TestQABrokenPipeIsSilent141(t *testing.T) {
	var stderr strings.Builder
	code := run([]string{"info", "f32[3,5]"}, epipeWriter{}, &stderr)
	if code != exitBrokenPipe || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr.String(), exitBrokenPipe)
	}
}

// "tpulayout gather images model.safetensors", where images was made from
// model.safetensors (f32, converted to bf16), replaced the f32 checkpoint with the bf16
// arrays and exited 0.
func TestQAGatherRefusesItsSource(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sharding", "replicated.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	orig := readFile(t, fixture)
	if err := os.WriteFile("ckpt.safetensors", orig, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "convert", "ckpt.safetensors", "images", "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e", "--dtype", "bf16")
	_, errOut, code := runCmd(t, "gather", "images", "./ckpt.safetensors")
	if code != 2 || !strings.Contains(errOut, "the checkpoint the images were made from") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if got := readFile(t, "ckpt.safetensors"); string(got) != string(orig) {
		t.Errorf("the source checkpoint was replaced")
	}
	mustRun(t, "gather", "images", "other.safetensors")
}

// "tpulayout show 'f32[3,5]' --svg nodir/x.svg" said "writing the SVG: buffer: write
// nodir/x.svg: open nodir/.x.svg.tmp2145012320: no such file or directory": a temporary
// file's name the user never chose, and a package prefix.
func TestQASVGErrorNamesTheTarget(t *testing.T) {
	target := filepath.Join(t.TempDir(), "nodir", "x.svg")
	_, errOut, code := runCmd(t, "show", "f32[3,5]", "--svg", target)
	if code != exitUsage || strings.Contains(errOut, ".tmp") || strings.Contains(errOut, "buffer:") ||
		!strings.Contains(errOut, "writing the SVG "+target+": no such file or directory") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// "convert ckpt --all --mesh data=2 --rules nothere.json …" said only "--rules: no such
// file or directory"; a bad rules file said "--rules: sharding: rules file …".
func TestQARulesFileErrors(t *testing.T) {
	in, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sharding", "replicated.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"rulez": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for rules, want := range map[string]string{
		filepath.Join(dir, "nothere.json"): "--rules " + filepath.Join(dir, "nothere.json") + ": no such file or directory",
		bad:                                "--rules: rules file " + bad,
	} {
		_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, "out"), "--all", "--mesh", "data=2", "--rules", rules, "--to", "tpu:v5e")
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("--rules %s: exit %d, stderr %q, want %q", rules, code, errOut, want)
		}
	}
}

// README's bits.npy (a u16 .npy of bf16 bits) as validate's REF without --view: every
// element differed and nothing said why, where convert prints a note naming --view bf16.
func TestQAValidateU16RefHintsView(t *testing.T) {
	dir := t.TempDir()
	ref := testfiles.RandomBuffer(t, "u16[8,128]", 3)
	refPath := testfiles.WriteNPY(t, dir, "bits.npy", ref)
	dump := filepath.Join(dir, "dump.bin")
	if err := os.WriteFile(dump, ref.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "validate", dump, "--layout", "bf16[8,128]{1,0}", "--ref", refPath, "--view", "bf16")
	_, errOut, code := runCmd(t, "validate", dump, "--layout", "bf16[8,128]{1,0}", "--ref", refPath)
	if code != exitMismatch || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "add --view bf16") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// "tpulayout help --help" said 'unknown verb "--help"' and exited 2, though every
// verb's --help exits 0.
func TestQAHelpHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		out, errOut, code := runCmd(t, "help", arg)
		if code != exitOK || errOut != "" || !strings.Contains(out, "Usage:") {
			t.Errorf("help %s: exit %d, stderr %q", arg, code, errOut)
		}
	}
}

// "tpulayout verify images --source other.safetensors" compared with other.safetensors
// but ended "… checked against model.safetensors" (the manifest's source).
func TestQAVerifyNamesTheSourceUsed(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sharding", "replicated.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	data := readFile(t, fixture)
	for _, name := range []string{"ckpt.safetensors", "copy.safetensors"} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "convert", "ckpt.safetensors", "images", "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e")
	out := mustRun(t, "verify", "images", "--source", "copy.safetensors")
	if !strings.Contains(out, "checked against copy.safetensors") {
		t.Errorf("verify --source copy.safetensors printed %q", out)
	}
}

// "tpulayout info 'hlo:m.txt:param=99999999999999999999'" ended with strconv's
// 'strconv.Atoi: parsing "9999…": value out of range'.
func TestQAHLORefHugeIndex(t *testing.T) {
	mod := filepath.Join(t.TempDir(), "m.txt")
	text := "HloModule m\n\nENTRY %e (p: f32[3]) -> f32[3] {\n  ROOT %p = f32[3]{0} parameter(0)\n}\n"
	if err := os.WriteFile(mod, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCmd(t, "info", "hlo:"+mod+":param=99999999999999999999")
	if code != exitUsage || strings.Contains(errOut, "strconv") || !strings.Contains(errOut, "param 99999999999999999999 is out of range") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// tpulayout show 'f32[3,5]' --svg "" (an empty FILE) printed the grid and exited 0 without an SVG;
// convert refuses an empty OUT the same way.
func TestQAShowEmptySVG(t *testing.T) {
	wantUsageError(t, []string{"show", "f32[3,5]", "--svg", ""}, "--svg FILE is empty")
}
