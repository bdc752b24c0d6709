package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// shardCheckpoint writes testfiles.ShardCheckpoint into a new directory and returns it.
func shardCheckpoint(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testfiles.ShardCheckpoint(t, dir)
	return dir
}

func writeText(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeFiles reads every file under dir, by path relative to it.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = readFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func setShardBand(t *testing.T, n int64) {
	old := sharding.BandBytes
	sharding.BandBytes = n
	t.Cleanup(func() { sharding.BandBytes = old })
}

// TestShardProcessesMerge runs a sharded conversion as 4 concurrent processes into one
// directory, merges their manifests and checks that the result equals the one-process
// conversion byte for byte, for a single file and for a sharded checkpoint's index.
func TestShardProcessesMerge(t *testing.T) {
	setShardBand(t, 4096) // several bands per shard
	dir := shardCheckpoint(t)
	for _, ckpt := range []string{"model.safetensors", "model.safetensors.index.json"} {
		in := filepath.Join(dir, ckpt)
		common := []string{"convert", in, "--all", "--mesh", "data=2,model=4", "--rules", filepath.Join(dir, "rules.json"),
			"--to", "tpu:v5e", "--dtype", "bf16"}
		one := filepath.Join(t.TempDir(), "one")
		mustRun(t, append(common, one)...)
		four := filepath.Join(t.TempDir(), "four")
		// Four OS processes at the same time, as a batch system runs them (TestMain runs
		// the command when TPULAYOUT_RUN_MAIN=1). They use the default band size, the
		// one-process run 4 KiB bands: the images must not depend on it.
		var wg sync.WaitGroup
		outs, errs := make([]bytes.Buffer, 4), make([]bytes.Buffer, 4)
		fails := make([]error, 4)
		for i := range 4 {
			wg.Go(func() {
				cmd := exec.Command(os.Args[0], append(common, four, "--process", fmt.Sprintf("%d/4", i))...)
				cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
				cmd.Stdout, cmd.Stderr = &outs[i], &errs[i]
				fails[i] = cmd.Run()
			})
		}
		wg.Wait()
		for i := range 4 {
			if fails[i] != nil || !strings.Contains(outs[i].String(), manifest.PartialName(i, 4)) {
				t.Fatalf("process %d/4: %v, stdout %q, stderr %q", i, fails[i], outs[i].String(), errs[i].String())
			}
		}
		if _, err := os.Stat(filepath.Join(four, "manifest.json")); err == nil {
			t.Fatal("manifest.json exists before the merge")
		}
		mustRun(t, "manifest", "merge", four)
		a, b := treeFiles(t, one), treeFiles(t, four)
		if len(a) != len(b) {
			t.Errorf("%s: one process wrote %d files, four %d", ckpt, len(a), len(b))
		}
		for name, data := range a {
			if !bytes.Equal(data, b[name]) {
				t.Errorf("%s: %s differs between the one- and four-process conversions", ckpt, name)
			}
		}
		m, err := sharding.ReadManifest(filepath.Join(one, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, mt := range m.Tensors {
			if mt.Name == "step" && (len(mt.Shards) != 1 || len(mt.Shards[0].Devices) != 8) {
				t.Errorf("replicated tensor: %d shard files, want 1 listing all 8 devices", len(mt.Shards))
			}
			if mt.Name == "layers.0.attn.wq" && (len(mt.Shards) != 4 || !slices.Equal(mt.Shards[1].Devices, []int{1, 5})) {
				t.Errorf("P(None, model): shards %+v", mt.Shards)
			}
		}
		mustRun(t, "verify", one)
	}
}

// TestShardGatherVerify: gather gives back the source converted to bf16 (as the
// one-tensor convert writes it); verify passes, then fails on a changed byte and on
// a missing file.
func TestShardGatherVerify(t *testing.T) {
	setShardBand(t, 4096)
	dir := shardCheckpoint(t)
	in := filepath.Join(dir, "model.safetensors")
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "convert", in, out, "--all", "--mesh", "data=2,model=4", "--rules", filepath.Join(dir, "rules.json"),
		"--to", "tpu:v5e", "--dtype", "bf16")
	g := filepath.Join(t.TempDir(), "g.safetensors")
	mustRun(t, "gather", out, g)
	got, err := safetensors.Open(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"embed", "layers.0.attn.wq", "layers.0.mlp.w1", "layers.0.mlp.b1", "step"} {
		to := "bf16"
		if name == "step" {
			to = "s32"
		}
		ref := filepath.Join(t.TempDir(), "ref.safetensors")
		mustRun(t, "convert", in, "--tensor", name, ref, "--to", to)
		want, err := safetensors.ReadTensor(ref, name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := got.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Data, want.Data) || b.Shape.DType != want.Shape.DType {
			t.Errorf("gathered %s differs from the source converted to %s", name, to)
		}
	}
	if out := mustRun(t, "verify", out); !strings.Contains(out, "result: OK") {
		t.Errorf("verify printed %q", out)
	}
	img := filepath.Join(out, "layers.0.mlp.w1", "1_2.bin")
	data := readFile(t, img)
	data[100] ^= 1
	writeText(t, img, string(data))
	data[100] ^= 1
	stdout, _, code := runCmd(t, "verify", out)
	if code != 1 || !strings.Contains(stdout, "layers.0.mlp.w1/1_2.bin: crc32c") {
		t.Errorf("verify after a flipped bit: exit %d, %q", code, stdout)
	}
	_, errOut, code := runCmd(t, "gather", out, g)
	if code != 2 || !strings.Contains(errOut, "replicas") {
		t.Errorf("gather after a flipped bit: exit %d, %q", code, errOut)
	}
	// A wrong image whose checksum the manifest agrees with: the contents check finds
	// the element. Byte 4196 of the bf16[64,128]{1,0:T(8,128)(2,1)} image is in its
	// third 8-row tile row (the second 4 KiB band), element (16,25) of shard (1,2).
	old := crc32cHex(data)
	data[4196] ^= 1
	writeText(t, img, string(data))
	m := filepath.Join(out, "manifest.json")
	writeText(t, m, strings.Replace(string(readFile(t, m)), `"crc32c": "`+old, `"crc32c": "`+crc32cHex(data), 1))
	stdout, _, code = runCmd(t, "verify", out)
	if code != 1 || !strings.Contains(stdout, "1_2.bin: element [16 25] of the shard (global [80 281]) differs") {
		t.Errorf("verify after a changed element: exit %d, %q", code, stdout)
	}
	os.Remove(img)
	stdout, _, code = runCmd(t, "verify", out)
	if code != 1 || !strings.Contains(stdout, "1_2.bin: missing") {
		t.Errorf("verify after a removed file: exit %d, %q", code, stdout)
	}
}

func crc32cHex(b []byte) string {
	return fmt.Sprintf("%08x", crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
