package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Regression tests from hostile-user QA: each names the command that went wrong.

// "tpulayout convert x.npy o.bin --to tpu:v5e --dtype c64" said "has no TPU vreg
// elements must be …": cleanErr cut "layout: " out of the middle of the sentence.
func TestQAErrorKeepsInnerLayoutWord(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "x.npy", randomBuffer(t, "f32[8,128]", 1))
	_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, "o.bin"), "--to", "tpu:v5e", "--dtype", "c64")
	if code != 2 || !strings.Contains(errOut, "has no TPU vreg layout: elements must be") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
