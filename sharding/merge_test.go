package sharding

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// partials converts the mesh2d_repl_f32 fixture (mesh data=2,model=2, P("model"):
// every shard on one device of each process) as two processes into a new directory.
func partials(t testing.TB) string { return partialsSummed(t, "", "") }

// partialsSummed is partials with the checksum of each process's images. A process
// whose checksum is not the first's would be refused (see checkPartials); it writes
// into a directory of its own, whose partial manifest is then copied beside the
// first's, as processes started together would leave them.
func partialsSummed(t testing.TB, sums ...string) string {
	t.Helper()
	ckpt, o := openReplicated(t)
	dir := filepath.Join(t.TempDir(), "out")
	for i := range 2 {
		to := dir
		if sums[i] != sums[0] {
			to = dir + "-apart"
		}
		o.Process, o.Processes, o.Checksum = i, 2, sums[i]
		if _, err := convertDir(ckpt, to, o); err != nil {
			t.Fatal(err)
		}
		if to != dir {
			name := manifest.PartialName(i, 2)
			if err := os.Rename(filepath.Join(to, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not hold %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMerge(t *testing.T) {
	dir := partials(t)
	m, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Devices) != 4 || len(m.Tensors[0].Shards) != 2 || len(m.Tensors[0].Shards[0].Devices) != 2 {
		t.Errorf("merged manifest: %d devices, shards %+v", len(m.Devices), m.Tensors[0].Shards)
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.PartialName(0, 2))); err == nil {
		t.Error("the partial manifests are still there")
	}
}

func TestMergeErrors(t *testing.T) {
	cases := []struct {
		name  string
		tweak func(t *testing.T, dir string)
		want  string
	}{
		{"missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, manifest.PartialName(1, 2))) }, "process(es) 1 of 2"},
		{"mixed", func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, manifest.PartialName(1, 2)), filepath.Join(dir, manifest.PartialName(1, 3)))
		}, "of 2 and of 3"},
		{"replica", func(t *testing.T, dir string) {
			m, _ := ReadManifest(filepath.Join(dir, manifest.PartialName(1, 2)))
			_, sum := m.Tensors[0].Shards[0].Checksum()
			edit(t, filepath.Join(dir, manifest.PartialName(1, 2)), sum, strings.Repeat("0", len(sum)))
		}, "different contents"},
		{"target", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, manifest.PartialName(1, 2)), `"to": "f32"`, `"to": "bf16"`)
		}, "different conversions"},
		{"process", func(t *testing.T, dir string) {
			edit(t, filepath.Join(dir, manifest.PartialName(1, 2)), `"process": "1/2"`, `"process": "0/2"`)
		}, "says it is process"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := partials(t)
			c.tweak(t, dir)
			_, err := Merge(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Merge = %v, want an error with %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err == nil {
				t.Error("a failed merge wrote manifest.json")
			}
		})
	}
}
