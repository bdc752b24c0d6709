package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/walkthrough"
)

// The example directory is the same bytes every time, holds the arrays it promises, is
// idempotent, and never overwrites a file that is not its own.
func TestExample(t *testing.T) {
	a, b := t.TempDir(), filepath.Join(t.TempDir(), "new", "dir")
	mustRun(t, "example", a)
	out := mustRun(t, "example", b)
	if !strings.Contains(out, "written") {
		t.Errorf("first run:\n%s", out)
	}
	for _, f := range walkthrough.Files() {
		x, err1 := os.ReadFile(filepath.Join(a, f.Name))
		y, err2 := os.ReadFile(filepath.Join(b, f.Name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) || len(x) == 0 {
			t.Errorf("%s differs between two runs (%v, %v)", f.Name, err1, err2)
		}
	}
	if again := mustRun(t, "example", a); strings.Contains(again, "written") {
		t.Errorf("a second run into the same directory wrote files:\n%s", again)
	}

	w, err := npy.Read(filepath.Join(a, "weights.npy"))
	if err != nil || w.Shape.String() != "f32[256,1024]{1,0}" {
		t.Fatalf("weights.npy: %v, %v", w, err)
	}
	sf, err := safetensors.Open(filepath.Join(a, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ti := range sf.Tensors {
		got = append(got, ti.Name+" "+ti.BufferShape().String())
	}
	if want := "layers.0.attn.wq f32[512,512]{1,0} layers.0.mlp.w1 f32[512,2048]{1,0} norm.scale f32[512]{0}"; strings.Join(got, " ") != want {
		t.Errorf("model.safetensors holds %q, want %q", got, want)
	}

	// truncated.bin is what it says: validate diagnoses truncation, and nothing else.
	rep, errOut, code := runCmd(t, "validate", filepath.Join(a, "truncated.bin"), "--layout", "bf16[20,300]{1,0:T(8,128)(2,1)}", "--ref", filepath.Join(a, "small.npy"))
	if code != exitMismatch || !strings.Contains(rep, "diagnosis: truncated") || !strings.Contains(rep, "all ") {
		t.Errorf("validate truncated.bin: exit %d\n%s%s", code, rep, errOut)
	}

	// A file of the user's is left alone, and the run says which.
	mine := filepath.Join(t.TempDir(), "weights.npy")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCmd(t, "example", filepath.Dir(mine))
	if code != exitUsage || !strings.Contains(errOut, "weights.npy exists and is not the example's") {
		t.Errorf("existing file: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Errorf("the user's file was overwritten")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(mine), ".*tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
