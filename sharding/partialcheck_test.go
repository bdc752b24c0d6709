package sharding

import (
	"context"
	"errors"
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
