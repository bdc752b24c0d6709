package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// More regression tests from hostile-user QA: each names the command that went wrong.

// "tpulayout convert x.npy o.npy --to s4" said ".npy files cannot hold s4 elements:
// buffer: unsupported element type: s4 has no .npy descr", a package prefix mid-message.
func TestQAHostOutCannotHoldDType(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "x.npy", testfiles.RandomBuffer(t, "f32[3,5]", 1))
	for _, out := range []string{"o.npy", "o.safetensors"} {
		_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, out), "--to", "s4")
		if code == 0 || !strings.Contains(errOut, "files cannot hold s4 elements;") ||
			strings.Contains(errOut, "buffer:") || strings.Contains(errOut, "unsupported") {
			t.Errorf("%s: exit %d, stderr %q", out, code, errOut)
		}
	}
}

// writeSafetensors writes a safetensors file of one tensor with the given header
// dtype, which the library's writer would refuse when it has no element type for it.
func writeSafetensors(t *testing.T, path, name, dtype string, shape []int, data []byte) {
	t.Helper()
	h, err := json.Marshal(map[string]any{name: map[string]any{
		"dtype": dtype, "shape": shape, "data_offsets": []int{0, len(data)}}})
	if err != nil {
		t.Fatal(err)
	}
	f := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	f = append(append(f, h...), data...)
	if err := os.WriteFile(path, f, 0o644); err != nil {
		t.Fatal(err)
	}
}

// "tpulayout convert i4.safetensors o.bin --to tpu:v5e" said "unsupported element
// type: safetensors: tensor "i4": dtype "I4"": three fragments, one package prefix.
func TestQASafetensorsUnknownDType(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "i4.safetensors")
	writeSafetensors(t, in, "i4", "I4", []int{4}, make([]byte, 2))
	_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, "o.bin"), "--to", "tpu:v5e")
	want := `i4.safetensors: tensor "i4" has dtype "I4", which tpulayout does not support` + "\n"
	if code == 0 || !strings.HasSuffix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want it to end in %q", code, errOut, want)
	}
}

// "tpulayout convert one-tensor.safetensors OUT --all --to f32" said "since tensors
// differ in shape" of a file with one tensor.
func TestQAAllToDTypeReason(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "one.safetensors")
	writeSafetensors(t, in, "t", "F32", []int{3, 5}, make([]byte, 60))
	_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, "out"), "--all", "--to", "f32")
	if code != 2 || strings.Contains(errOut, "differ") || !strings.Contains(errOut, "--dtype sets the element type") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// "tpulayout validate - --layout … --ref r.npy < dump" said "no such file or
// directory" while /dev/stdin worked.
func TestQAValidateDumpStdin(t *testing.T) {
	dir := t.TempDir()
	const shape = "f32[8,128]{1,0:T(8,128)}"
	ref := testfiles.WriteNPY(t, dir, "r.npy", testfiles.RandomBuffer(t, "f32[8,128]", 3))
	dump := filepath.Join(dir, "d.bin")
	mustRun(t, "convert", ref, dump, "--to", shape)
	defer func(r io.Reader) { stdin = r }(stdin)
	stdin = bytes.NewReader(readFile(t, dump))
	out, errOut, code := runCmd(t, "validate", "-", "--layout", shape, "--ref", ref)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	stdin = bytes.NewReader(readFile(t, dump)[:100])
	if _, errOut, code = runCmd(t, "validate", "-", "--layout", shape, "--ref", ref); code != 2 || !strings.Contains(errOut, "DUMP - has 100 bytes") {
		t.Errorf("short stdin: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCmd(t, "validate", dump, "--layout", shape, "--ref", "-")
	if code != 2 || !strings.Contains(errOut, "not supported for REF; use a file") {
		t.Errorf("REF -: exit %d, stderr %q", code, errOut)
	}
}

// "tpulayout info 'f32[3,5]{1,0:T(8,128)}' --to tpu:v5e" reported on T(4,128) and
// said nothing of the given layout it had replaced.
func TestQAInfoToNotesReplacedLayout(t *testing.T) {
	var note bytes.Buffer
	defer func(w io.Writer) { progressOut = w }(progressOut)
	progressOut = &note
	out := mustRun(t, "info", "f32[3,5]{1,0:T(8,128)}", "--to", "tpu:v5e")
	if !strings.HasPrefix(out, "shape:           f32[3,5]{1,0:T(4,128)}\n") ||
		!strings.Contains(note.String(), "--to tpu:v5e replaced SHAPE's layout: f32[3,5]{1,0:T(8,128)} is reported as") {
		t.Errorf("stdout %q, stderr note %q", out, note.String())
	}
	// No layout given, or the one --to picks: nothing was replaced, no note.
	for _, shape := range []string{"f32[3,5]", "f32[3,5]{1,0:T(4,128)}"} {
		note.Reset()
		mustRun(t, "info", shape, "--to", "tpu:v5e")
		if note.Len() != 0 {
			t.Errorf("%s: note %q", shape, note.String())
		}
	}
}

// "tpulayout blockspec --array 'bf16[256,512]{0,1}' --block 8,128" checked the block as
// if the array were row-major, silently ignoring the transposed layout.
func TestQABlockspecRejectsOtherLayout(t *testing.T) {
	for _, array := range []string{"bf16[256,512]{0,1}", "bf16[256,512]{1,0:T(8,128)}"} {
		wantUsageError(t, []string{"blockspec", "--array", array, "--block", "8,128"},
			"is not one a Pallas TPU operand has", "v5e's default {1,0:T(")
	}
	for _, array := range []string{"bf16[256,512]", "bf16[256,512]{1,0}", "bf16[256,512]{1,0:T(8,128)(2,1)}"} {
		if out := mustRun(t, "blockspec", "--array", array, "--block", "8,128"); !strings.Contains(out, "legal:            yes") {
			t.Errorf("%s: %q", array, out)
		}
	}
}

// "tpulayout convert … --progress 2>&1 | head -1" exited 141 although OUT was complete
// and renamed into place: the broken pipe only lost the last progress line and the
// shape line on stdout. Here stdout is a pipe closed from the start and stderr a file,
// so that the only broken write comes after OUT is in place.
func TestQABrokenPipeAfterOutIsInPlace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE")
	}
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "x.npy", testfiles.RandomBuffer(t, "f32[64,256]", 5))
	out := filepath.Join(dir, "out.bin")
	const to = "bf16[64,256]{1,0:T(8,128)(2,1)}"
	cmd := exec.Command(os.Args[0], "convert", in, out, "--progress", "--to", to)
	cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	r.Close() // no reader: the shape line on stdout raises SIGPIPE
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("convert: %v (stderr %q), want exit 0: OUT was in place", err, stderr.String())
	}
	want := filepath.Join(dir, "want.bin")
	mustRun(t, "convert", in, want, "--to", to)
	if !bytes.Equal(readFile(t, out), readFile(t, want)) {
		t.Error("OUT differs from a conversion without the broken pipe")
	}
}

// The in-process half: run's own EPIPE check on stdout, which wins when the signal
// handler has not run yet.
func TestQABrokenStdoutAfterOutIsInPlace(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "x.npy", testfiles.RandomBuffer(t, "f32[8,128]", 6))
	var stderr strings.Builder
	code := run([]string{"convert", in, filepath.Join(dir, "o.bin"), "--to", "tpu:v5e"}, epipeWriter{}, &stderr)
	if code != exitOK || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	// Before OUT is in place (or with no OUT at all) it stays 141.
	if code := run([]string{"info", "f32[3,5]"}, epipeWriter{}, &stderr); code != exitBrokenPipe {
		t.Errorf("info: exit %d, want %d", code, exitBrokenPipe)
	}
}

// The same for a sharded conversion: its directory is in place when stdout breaks.
func TestQABrokenStdoutAfterShardedOutIsInPlace(t *testing.T) {
	in, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sharding", "replicated.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var stderr strings.Builder
	code := run([]string{"convert", in, out, "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e"}, epipeWriter{}, &stderr)
	if code != exitOK || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Error(err)
	}
}
