package sharding

import (
	"errors"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergedManifest merges partials and returns the directory and its manifest.
func mergedManifest(t *testing.T) (string, *manifest.Manifest) {
	t.Helper()
	dir := partials(t)
	if _, err := Merge(dir); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// rewrite writes m as dir's manifest.
func rewrite(t *testing.T, dir string, m *manifest.Manifest) {
	t.Helper()
	js, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), js, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A manifest that lists a tensor twice is refused, naming it, by every reader (issue
// 44.10: verify passed it).
func TestManifestTensorTwice(t *testing.T) {
	dir, m := mergedManifest(t)
	m.Tensors = append(m.Tensors, m.Tensors[0])
	rewrite(t, dir, m)
	want := "tensor \"" + m.Tensors[0].Name + "\" is listed twice"
	if _, err := ReadManifest(filepath.Join(dir, manifest.FileName)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadManifest: %v, want an error saying %q", err, want)
	}
	ckpt := filepath.Join(fixtureDir, "mesh2d_repl_f32.safetensors")
	if _, err := Verify(dir, ckpt); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Verify: %v, want an error saying %q", err, want)
	}
}

// Gather refuses a manifest without tensors rather than write an empty checkpoint.
func TestGatherNoTensors(t *testing.T) {
	dir, m := mergedManifest(t)
	m.Tensors, m.Devices = []manifest.Tensor{}, nil
	rewrite(t, dir, m)
	out := filepath.Join(t.TempDir(), "g.safetensors")
	if _, err := Gather(dir, out); err == nil || !strings.Contains(err.Error(), "lists no tensors") {
		t.Errorf("Gather: %v, want an error saying the manifest lists no tensors", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("Gather wrote a checkpoint")
	}
}

// A second merge says the directory is already merged; a directory without any
// manifest names the partial manifests' pattern, not one of 4 processes.
func TestMergeTwice(t *testing.T) {
	dir, _ := mergedManifest(t)
	_, err := Merge(dir)
	if err == nil || !strings.Contains(err.Error(), "already merged") || strings.Contains(err.Error(), "of-4") {
		t.Errorf("second Merge: %v, want an error saying it is already merged", err)
	}
	_, err = Merge(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no partial manifests (manifest.process-I-of-N.json") {
		t.Errorf("Merge of an empty directory: %v, want one naming manifest.process-I-of-N.json", err)
	}
}

// Gather's OUT is local: a bucket URL is refused as one, not "no such file" (issue
// 44.9).
func TestGatherOutBucketURL(t *testing.T) {
	dir, _ := mergedManifest(t)
	_, err := GatherOutdir(dir, "s3://b/g.safetensors")
	var ce *ConvertError
	if !errors.As(err, &ce) || !ce.Setting || !strings.Contains(err.Error(), "OUT s3://b/g.safetensors is a bucket URL, which gather does not write") {
		t.Errorf("GatherOutdir: %v, want a usage error naming the bucket URL", err)
	}
}
