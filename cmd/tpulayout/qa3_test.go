package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// More regression tests from hostile-user QA: each names the command that went wrong.

// "tpulayout convert x.npy o.npy --to s4" said ".npy files cannot hold s4 elements:
// buffer: unsupported element type: s4 has no .npy descr", a package prefix mid-message.
func TestQAHostOutCannotHoldDType(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "x.npy", randomBuffer(t, "f32[3,5]", 1))
	for _, out := range []string{"o.npy", "o.safetensors"} {
		_, errOut, code := runCmd(t, "convert", in, filepath.Join(dir, out), "--to", "s4")
		if code == 0 || !strings.Contains(errOut, "files cannot hold s4 elements;") ||
			strings.Contains(errOut, "buffer:") || strings.Contains(errOut, "unsupported") {
			t.Errorf("%s: exit %d, stderr %q", out, code, errOut)
		}
	}
}
