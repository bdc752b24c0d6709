package sharding

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
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

// copyTree copies the regular files of the tree src into dst.
func copyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	for rel, data := range readTree(tb, src) {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// FuzzManifestGather: any manifest.json beside real images makes Gather write the
// arrays or fail with an error, never panic or allocate what the files on disk do not
// back; what ParseManifest takes, Marshal prints and ParseManifest takes again.
func FuzzManifestGather(f *testing.F) {
	dir := partials(f)
	if _, err := Merge(dir); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"tpulayout-sharded-1","checksum":"sha256","mesh":{"axes":["d"],"sizes":[1048576]},"devices":[],"tensors":[]}`))
	f.Add([]byte(`{"format":"tpulayout-sharded-1","checksum":"crc32c","mesh":{"axes":["d"],"sizes":[2]},"devices":[],"tensors":[]}`))
	// A manifest of before crc32c, naming sha256: the images beside it are the same.
	if old, err := os.ReadFile(filepath.Join(fixtureDir, "v1-sha256", "whole", manifest.FileName)); err == nil {
		f.Add(old)
		f.Add(bytes.Replace(old, []byte(`"checksum": "sha256"`), []byte(`"checksum": "crc32c"`), 1))
	}
	out := filepath.Join(f.TempDir(), "out.safetensors")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse(data)
		if err != nil {
			return
		}
		js, err := m.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if _, err := manifest.Parse(js); err != nil {
			t.Fatalf("a parsed manifest, printed, does not parse: %v\n%s", err, js)
		}
		if err := os.WriteFile(filepath.Join(dir, manifest.FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		Gather(dir, out)
	})
}

// FuzzMergeInput: any first partial manifest beside a real second one and the images
// makes Merge write manifest.json or fail with an error, never panic; a merge that
// succeeds leaves a manifest that ParseManifest takes.
func FuzzMergeInput(f *testing.F) {
	base := partials(f)
	seed, err := os.ReadFile(filepath.Join(base, manifest.PartialName(0, 2)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"tpulayout-sharded-1","checksum":"sha256","process":"0/2","mesh":{"axes":["d"],"sizes":[4]},"devices":[{"id":0}],"tensors":[]}`))
	// Process 0's of a sha256 conversion beside process 1's of a crc32c one.
	if old, err := os.ReadFile(filepath.Join(fixtureDir, "v1-sha256", "partial", manifest.PartialName(0, 2))); err == nil {
		f.Add(old)
	}
	tmp := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		dir, err := os.MkdirTemp(tmp, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		copyTree(t, base, dir)
		if err := os.WriteFile(filepath.Join(dir, manifest.PartialName(0, 2)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Merge(dir); err != nil {
			return
		}
		if _, err := ReadManifest(filepath.Join(dir, manifest.FileName)); err != nil {
			t.Fatalf("Merge wrote a manifest that does not read back: %v", err)
		}
	})
}

// TestMarshalOneLineObjects: devices and source files print one a line, and the
// printed manifest parses back to the same one.
func TestMarshalOneLineObjects(t *testing.T) {
	dir := partials(t)
	m, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	js, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), "\n    {\"id\": 0, \"coords\": [0,0], \"files\": [") {
		t.Errorf("a device is not on one line:\n%s", js)
	}
	back, err := manifest.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	js2, _ := back.Marshal()
	if string(js2) != string(js) {
		t.Errorf("the manifest does not print back the same:\n%s\n%s", js, js2)
	}
}
