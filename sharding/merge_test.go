package sharding

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
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

// QA: "tpulayout manifest merge" said only "tensor … differs between partial
// manifests": neither the field nor the two files.
func TestMergeNamesWhatDiffers(t *testing.T) {
	p0, p1 := manifest.PartialName(0, 2), manifest.PartialName(1, 2)
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"dtype", `"dtype": "f32"`, `"dtype": "bf16"`,
			[]string{`tensor "x" differs between partial manifests ` + p0 + ` and ` + p1 + `: dtype f32 in the first, bf16 in the second`}},
		{"layout", `"layout": "f32[8,256]{1,0}"`, `"layout": "f32[8,256]{0,1}"`,
			[]string{"layout f32[8,256]{1,0} in the first, f32[8,256]{0,1} in the second"}},
		{"shape", `"shape": [16,256]`, `"shape": [16,128]`,
			[]string{"shape [16 256] in the first, [16 128] in the second"}},
		{"checksum", `"crc32c": "b4b3`, `"crc32c": "04b3`,
			[]string{`shard x/0_0.bin (tensor "x", shard [0 0]) was written with different contents by two processes, ` + p0 + ` and ` + p1 + `: crc32c b4b3`, "in the first, 04b3"}},
		{"target", `"to": "f32"`, `"to": "bf16"`,
			[]string{p0 + ` and ` + p1 + ` describe different conversions: to f32 in the first, bf16 in the second`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := partials(t)
			edit(t, filepath.Join(dir, p1), c.old, c.new)
			_, err := Merge(dir)
			var me *manifest.MismatchError
			if !errors.As(err, &me) || me.First != p0 || me.Second != p1 || len(me.Diffs) == 0 {
				t.Fatalf("Merge = %#v, want a *manifest.MismatchError of %s and %s", err, p0, p1)
			}
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("Merge = %v, want an error with %q", err, w)
				}
			}
		})
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

// TestMergeMixedChecksums: partial manifests of different checksums do not merge.
func TestMergeMixedChecksums(t *testing.T) {
	dir := partialsSummed(t, manifest.CRC32C, manifest.SHA256)
	_, err := Merge(dir)
	if err == nil || !strings.Contains(err.Error(), "checksum crc32c in the first, sha256 in the second") {
		t.Fatalf("Merge = %v, want the checksums named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err == nil {
		t.Error("a manifest was written")
	}
}

// TestMergeURLNamesObjects: a merge under a bucket prefix, which merges a temporary
// copy of the partial manifests, names the prefix and the object by their URLs (as
// MergeError's fields and in its text), never the temporary directory.
func TestMergeURLNamesObjects(t *testing.T) {
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			out := serverURL(t, srv, "out")
			b, key := openURL(t, out)
			part := manifest.PartialName(0, 1)
			put(t, b, key+"/"+part, []byte("{"))
			_, err := MergeURL(out)
			var me *manifest.MergeError
			if !errors.As(err, &me) || me.Dir != out+"/" || me.Partial != part {
				t.Errorf("MergeURL: %#v, want a MergeError on %s/, partial %s", err, out, part)
			}
			if want := "sharding: manifest " + out + "/" + part + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("MergeURL: %v, want it to start %q", err, want)
			}
			// An empty prefix's error is the NoPartialsError itself, which a command
			// words (its Process field by the flag), not one hidden in a wrapper.
			_, err = MergeURL(out + "/none")
			if np, ok := err.(*manifest.NoPartialsError); !ok || np.Dir != out+"/none/" {
				t.Errorf("MergeURL of an empty prefix: %#v, want a *manifest.NoPartialsError on %s/none/", err, out)
			}
		})
	}
}

// A --process run whose options make another conversion than the partial manifests
// already in its OUTDIR is refused before it writes, naming what differs and both
// values (issue 44.5: it rewrote the replicas process 0 had written).
func TestProcessOfAnotherConversion(t *testing.T) {
	ckpt, base := openReplicated(t)
	toBF16 := func(_ safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) {
		s.DType = layout.BF16
		return s, nil
	}
	opts := func(process int, spec string, edit func(*jobOptions)) jobOptions {
		sp, err := placement.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		o := base
		o.Process, o.Processes, o.Checksum, o.SpecFor = process, 2, manifest.CRC32C, specAll(sp)
		if edit != nil {
			edit(&o)
		}
		return o
	}
	for _, c := range []struct {
		name string
		opt  jobOptions
		want string
	}{
		{"checksum", opts(1, `P("model")`, func(o *jobOptions) { o.Checksum = manifest.SHA256 }), "checksum is crc32c there but sha256 in this run"},
		{"dtype", opts(1, `P("model")`, func(o *jobOptions) { o.Target = toBF16 }), `tensor "x": layout is f32[`},
		{"to", opts(1, `P("model")`, func(o *jobOptions) { o.To = "bf16" }), `to is "f32" there but "bf16" in this run`},
		{"spec", opts(1, `P("data")`, nil), `tensor "x": spec is P("model") there but P("data") in this run`},
		{"processes", opts(1, `P("model")`, func(o *jobOptions) { o.Processes = 4; o.Process = 1 }), `process count`},
		{"mesh", opts(1, `P("model")`, func(o *jobOptions) { o.Mesh, _ = placement.ParseMesh("data=2,model=2", []int{3, 2, 1, 0}) }), "the mesh's devices is [0,1,2,3] there but [3,2,1,0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if _, err := convertDir(ckpt, dir, opts(0, `P("model")`, nil)); err != nil {
				t.Fatal(err)
			}
			before := readTree(t, dir)
			_, err := convertDir(ckpt, dir, c.opt)
			var ce *manifest.ConflictError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) || ce.Partial != manifest.PartialName(0, 2) {
				t.Fatalf("ConvertDir: %v, want a ConflictError over %s saying %q", err, manifest.PartialName(0, 2), c.want)
			}
			sameContents(t, readTree(t, dir), before)
		})
	}
	// The same conversion is taken, and a rerun of process 0 with other options
	// replaces only its own partial manifest.
	dir := filepath.Join(t.TempDir(), "out")
	for i := range 2 {
		if _, err := convertDir(ckpt, dir, opts(i, `P("model")`, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Merge(dir); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "out")
	for _, o := range []jobOptions{opts(0, `P("model")`, nil), opts(0, `P("model")`, func(o *jobOptions) { o.Checksum = manifest.SHA256 })} {
		if _, err := convertDir(ckpt, dir, o); err != nil {
			t.Fatalf("rerun of process 0: %v", err)
		}
	}
}

// TestProcessOfAnotherConversionInBucket is TestProcessOfAnotherConversion under a
// bucket prefix of each test server: refused before any object is written. Then the
// right process 1, a merge, and a second merge, which says it is already merged.
func TestProcessOfAnotherConversionInBucket(t *testing.T) {
	ctx := context.Background()
	ckpt, base := openReplicated(t)
	opt := func(process int, sum string) jobOptions {
		o := base
		o.Process, o.Processes, o.Checksum = process, 2, sum
		return o
	}
	write := func(out string, o jobOptions) error {
		j, err := prepare(ckpt, o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.writeURL(out)
		return err
	}
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			out := serverURL(t, srv, "out")
			if err := write(out, opt(0, manifest.CRC32C)); err != nil {
				t.Fatal(err)
			}
			b, key := openURL(t, out)
			list := func() []store.Attrs {
				as, err := b.List(ctx, key+"/")
				if err != nil {
					t.Fatal(err)
				}
				for i := range as {
					as[i].Metadata = nil
				}
				return as
			}
			before := list()
			err := write(out, opt(1, manifest.SHA256))
			var ce *manifest.ConflictError
			if !errors.As(err, &ce) || ce.Diff.Field != "checksum" || ce.Diff.Theirs != "crc32c" || ce.Diff.Ours != "sha256" {
				t.Fatalf("WriteURL: %v, want a ConflictError over the checksum", err)
			}
			if after := list(); !slices.EqualFunc(before, after, func(a, b store.Attrs) bool {
				return a.Key == b.Key && a.Size == b.Size && a.Version == b.Version
			}) {
				t.Errorf("objects before: %+v\nafter: %+v", before, after)
			}
			// The same conversion is taken and merges; a second merge says it is done.
			if err := write(out, opt(1, manifest.CRC32C)); err != nil {
				t.Fatal(err)
			}
			if _, err := MergeURL(out); err != nil {
				t.Fatal(err)
			}
			if _, err := MergeURL(out); err == nil || !strings.Contains(err.Error(), out+"/ is already merged") {
				t.Errorf("second MergeURL: %v, want one saying %s/ is already merged", err, out)
			}
		})
	}
}
