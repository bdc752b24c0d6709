package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// A mesh of many devices that all hold the same shard keeps a small manifest (issue
// 25: 2^20 devices made a manifest of 159 MB): the device lists are runs, and the
// per-device table, which the mesh and the shards give, is rebuilt when read. One
// process and four merged write the same directory, which verify and gather accept.
func TestBigMeshCompactManifest(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "model.safetensors")
	tensors := []safetensors.NamedBuffer{
		{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 1)},
		{Name: "b", Buf: testfiles.RandomBuffer(t, "f32[256]", 2)},
	}
	if err := safetensors.Write(ckpt, tensors, nil); err != nil {
		t.Fatal(err)
	}
	common := []string{"--all", "--mesh", "data=4,model=1024", "--spec", "P()", "--to", "tpu:v5e"}
	one := filepath.Join(dir, "one")
	mustRun(t, append([]string{"convert", ckpt, one}, common...)...)
	js, err := os.ReadFile(filepath.Join(one, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(js) > 4096 || !strings.Contains(string(js), `"devices": "0-4095"`) {
		t.Errorf("the manifest of 4096 devices holding one shard each has %d bytes:\n%.2000s", len(js), js)
	}
	four := filepath.Join(dir, "four")
	for i := range 4 {
		mustRun(t, append([]string{"convert", ckpt, four, "--process", fmt.Sprintf("%d/4", i)}, common...)...)
	}
	mustRun(t, "manifest", "merge", four)
	sameTree(t, one, four, ckpt, ckpt)
	if out := mustRun(t, "verify", one); !strings.Contains(out, "on 4096 devices") || !strings.Contains(out, "result: OK") {
		t.Errorf("verify says %q", out)
	}
	mustRun(t, "gather", one, filepath.Join(dir, "g.safetensors"))
}
