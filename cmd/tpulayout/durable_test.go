package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
)

// TestSyncFalse: --sync=false writes the same bytes as the durable default (convert
// of one tensor, --all, sharded, and gather), and the next verb is durable again.
func TestSyncFalse(t *testing.T) {
	in := filepath.Join(shardCheckpoint(t), "model.safetensors")
	mesh := []string{"--mesh", "d=2", "--spec", "P()", "--to", "tpu:v5e"}
	outs := map[string][2]string{}
	for i, mode := range [][]string{nil, {"--sync=false"}} {
		d := t.TempDir()
		tensor, all, sharded, gathered := filepath.Join(d, "t.bin"), filepath.Join(d, "all"), filepath.Join(d, "sh"), filepath.Join(d, "g.safetensors")
		mustRun(t, append([]string{"convert", in, tensor, "--tensor", "embed", "--to", "tpu:v5e"}, mode...)...)
		mustRun(t, append([]string{"convert", in, all, "--all", "--to", "tpu:v5e"}, mode...)...)
		mustRun(t, append(append([]string{"convert", in, sharded, "--all"}, mesh...), mode...)...)
		mustRun(t, append([]string{"gather", sharded, gathered}, mode...)...)
		if !buffer.Durable() {
			t.Fatalf("after %v the next verb is not durable", mode)
		}
		err := filepath.WalkDir(d, func(f string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := os.ReadFile(f)
			rel, _ := filepath.Rel(d, f)
			o := outs[rel]
			o[i] = string(data)
			outs[rel] = o
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(outs) < 8 {
		t.Fatalf("only %d files written", len(outs))
	}
	for f, o := range outs {
		if o[0] != o[1] {
			t.Errorf("%s: %d bytes durable, %d with --sync=false, or they differ", f, len(o[0]), len(o[1]))
		}
	}
}
