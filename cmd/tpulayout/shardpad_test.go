package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardPadChecked: a sharded conversion refuses a --pad its images' type does not
// hold, as convert does, before writing anything (it wrote 1.5 into s8 padding as 1).
func TestShardPadChecked(t *testing.T) {
	ckpt := filepath.Join("..", "..", "testdata", "sharding", "mesh2d_both.safetensors")
	for _, c := range []struct{ dtype, pad, want string }{
		{"s8", "1.5", `tensor "x": --pad 1.5 is not a whole number in s8's range -128 to 127`},
		{"bf16", "1e300", `tensor "x": --pad 1e300 is outside bf16's range`},
		{"bf16", "0.1", `tensor "x": --pad 0.1 is not exact in bf16`},
	} {
		out := filepath.Join(t.TempDir(), "out")
		_, errOut, code := runCmd(t, "convert", ckpt, out, "--mesh", "data=2,model=4", "--spec", `P("data", "model")`,
			"--to", "tpu:v5e", "--dtype", c.dtype, "--pad", c.pad)
		if code != 2 || !strings.HasPrefix(errOut, "tpulayout convert: "+c.want) {
			t.Errorf("--dtype %s --pad %s: exit %d, %q; want 2, %q", c.dtype, c.pad, code, errOut, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--pad %s: OUTDIR made: %v", c.pad, err)
		}
	}
	mustRun(t, "convert", ckpt, filepath.Join(t.TempDir(), "ok"), "--mesh", "data=2,model=4", "--spec", `P("data", "model")`,
		"--to", "tpu:v5e", "--dtype", "s8", "--pad", "-7")
}
