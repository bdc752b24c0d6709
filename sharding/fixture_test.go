package sharding

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// fixtureCase is one entry of testdata/sharding/cases.json, made by gen.py with NumPy.
type fixtureCase struct {
	Name    string `json:"name"`
	Mesh    string `json:"mesh"`
	Devices []int  `json:"devices"`
	Spec    string `json:"spec"`
	Layout  string `json:"layout"`
	Images  []struct {
		Device int        `json:"device"`
		Ranges [][2]int64 `json:"ranges"`
		Offset int64      `json:"offset"`
		Bytes  int64      `json:"bytes"`
	} `json:"images"`
}

const fixtureDir = "../testdata/sharding"

func readFixtures(t *testing.T) []fixtureCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []fixtureCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 12 {
		t.Fatalf("only %d fixture cases", len(cases))
	}
	return cases
}

// parse parses the case's mesh, spec and layout.
func (c fixtureCase) parse(t testing.TB) (*placement.Mesh, placement.Spec, layout.Shape) {
	t.Helper()
	mesh, err := placement.ParseMesh(c.Mesh, c.Devices)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := placement.ParseSpec(c.Spec)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := layout.Parse(c.Layout)
	if err != nil {
		t.Fatal(err)
	}
	return mesh, spec, dst
}

// layoutAlone is dst's layout without its dtype and dims, as the CLI's --to takes it.
func layoutAlone(dst layout.Shape) string {
	return dst.String()[strings.Index(dst.String(), "{"):]
}

// specAll is a jobOptions.SpecFor that places every tensor by spec.
func specAll(spec placement.Spec) func(string) (placement.Spec, error) {
	return func(string) (placement.Spec, error) { return spec, nil }
}

// targetAll is a jobOptions.Target that converts every tensor to dst.
func targetAll(dst layout.Shape) func(safetensors.TensorInfo, layout.Shape) (layout.Shape, error) {
	return func(safetensors.TensorInfo, layout.Shape) (layout.Shape, error) { return dst, nil }
}

// asIs is a jobOptions.Target that keeps each shard's own shape and dtype.
func asIs(_ safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) { return s, nil }

// tiledBF16 is a jobOptions.Target that converts 2-D tensors into bf16
// T(8,128)(2,1) and the others into bf16 row-major.
func tiledBF16(_ safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) {
	if len(s.Dims) != 2 {
		return rowMajor(layout.BF16, s.Dims), nil
	}
	return layout.Parse(fmt.Sprintf("bf16[%d,%d]{1,0:T(8,128)(2,1)}", s.Dims[0], s.Dims[1]))
}

// rowMajorBF16 is a jobOptions.Target that converts every tensor into bf16 row-major.
func rowMajorBF16(_ safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) {
	return rowMajor(layout.BF16, s.Dims), nil
}

// gridOptions are the options that place every tensor by P("data", "model") on mesh
// (data=2,model=4 and the like, its devices in order) and convert it by target.
func gridOptions(mesh string, target func(safetensors.TensorInfo, layout.Shape) (layout.Shape, error)) jobOptions {
	m, err := placement.ParseMesh(mesh, nil)
	if err != nil {
		panic(err)
	}
	spec, err := placement.ParseSpec(`P("data", "model")`)
	if err != nil {
		panic(err)
	}
	return jobOptions{Mesh: m, SpecFor: specAll(spec), Target: target}
}

// openReplicated opens the mesh2d_repl_f32 fixture and returns it with the options
// that place it on mesh data=2,model=2 by P("model") (every shard on one device of
// each of two processes) and keep its shards' shapes, in f32.
func openReplicated(t testing.TB) (*Checkpoint, jobOptions) {
	t.Helper()
	ckpt, err := OpenCheckpoint(filepath.Join(fixtureDir, "mesh2d_repl_f32.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	mesh, err := placement.ParseMesh("data=2,model=2", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := placement.ParseSpec(`P("model")`)
	if err != nil {
		t.Fatal(err)
	}
	return ckpt, jobOptions{Mesh: mesh, To: "f32", SpecFor: specAll(spec), Target: asIs}
}

// TestFixtures converts each NumPy fixture and compares every device's image, and
// its index ranges, with what NumPy made, byte for byte. Small bands make the larger
// images go through the banded path too (read from a file or from a bucket).
func TestFixtures(t *testing.T) {
	for _, band := range []int64{BandBytes, 1024} {
		old, oldRemote := BandBytes, RemoteBandBytes
		BandBytes, RemoteBandBytes = band, band
		for _, c := range readFixtures(t) {
			t.Run(c.Name, func(t *testing.T) { checkFixture(t, c) })
		}
		BandBytes, RemoteBandBytes = old, oldRemote
	}
}

func checkFixture(t *testing.T, c fixtureCase) {
	mesh, spec, dst := c.parse(t)
	ckpt, err := openFixture(filepath.Join(fixtureDir, c.Name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(fixtureDir, c.Name+".images.bin"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	m, err := convertDir(ckpt, out, jobOptions{
		Mesh:    mesh,
		SpecFor: specAll(spec),
		Target: func(_ safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error) {
			if !slices.Equal(shard.Dims, dst.Dims) {
				t.Fatalf("shard dims %v, NumPy's %v", shard.Dims, dst.Dims)
			}
			return dst, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tm := m.Tensors[0]
	if len(c.Images) != mesh.Size() {
		t.Fatalf("fixture has %d images for %d devices", len(c.Images), mesh.Size())
	}
	for _, img := range c.Images {
		var sh *manifest.Shard
		for i := range tm.Shards {
			if slices.Contains(tm.Shards[i].Devices, img.Device) {
				sh = &tm.Shards[i]
			}
		}
		if sh == nil {
			t.Fatalf("device %d holds no shard", img.Device)
		}
		if !slices.Equal(sh.Ranges, img.Ranges) {
			t.Errorf("device %d: ranges %v, NumPy's %v", img.Device, sh.Ranges, img.Ranges)
		}
		got, err := os.ReadFile(filepath.Join(out, sh.File))
		if err != nil {
			t.Fatal(err)
		}
		exp := want[img.Offset : img.Offset+img.Bytes]
		if !bytes.Equal(got, exp) {
			i := 0
			for i < min(len(got), len(exp)) && got[i] == exp[i] {
				i++
			}
			t.Errorf("device %d: image %s (%d bytes) differs from NumPy's (%d bytes) first at byte %d", img.Device, sh.File, len(got), len(exp), i)
		}
	}
}

// convertLocal converts the checkpoint file in into the directory out with opt and
// returns the manifest.
func convertLocal(t *testing.T, in, out string, opt jobOptions) *manifest.Manifest {
	t.Helper()
	ckpt, err := OpenCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	m, err := convertDir(ckpt, out, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// convertMesh2D copies the mesh2d_both fixture into a new directory, dir, as
// w.safetensors and converts it into dir/out (mesh data=2,model=4, P("data", "model"),
// To tpu:v5e); it returns dir, the copy's path and the OUTDIR.
func convertMesh2D(t *testing.T) (dir, src, out string) {
	t.Helper()
	dir = t.TempDir()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "mesh2d_both.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	src, out = filepath.Join(dir, "w.safetensors"), filepath.Join(dir, "out")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(ConvertOptions{Checkpoint: src, Out: out, Mesh: "data=2,model=4",
		Spec: `P("data", "model")`, To: "tpu:v5e"}); err != nil {
		t.Fatal(err)
	}
	return dir, src, out
}

// writeRandomCheckpoint writes the safetensors checkpoint dir/m.safetensors, whose
// tensors, named a, b, c…, have the shapes given and random bytes from the PCG seed
// (s1, s2), and returns its path.
func writeRandomCheckpoint(t *testing.T, dir string, s1, s2 uint64, shapes ...string) string {
	t.Helper()
	path := filepath.Join(dir, "m.safetensors")
	rng := rand.New(rand.NewPCG(s1, s2))
	var bufs []safetensors.NamedBuffer
	for i, s := range shapes {
		b := buffer.MustNew(layout.MustParse(s))
		for j := range b.Data {
			b.Data[j] = byte(rng.Uint32())
		}
		bufs = append(bufs, safetensors.NamedBuffer{Name: string(rune('a' + i)), Buf: b})
	}
	if err := safetensors.Write(path, bufs, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// readTree returns the files under root, by their slash-separated paths relative to
// it, with their bytes.
func readTree(t testing.TB, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameContents fails unless got and want (as readTree returns them) hold the same files
// with the same bytes.
func sameContents(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s differs", name)
		}
	}
}

// sameTree fails unless directories a and b hold the same files with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	sameContents(t, readTree(t, a), readTree(t, b))
}
