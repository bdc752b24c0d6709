package sharding

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// randomCheckpoint writes a safetensors file of one f32 tensor "w" of dims, of random
// finite values, and returns its path and the tensor's bytes.
func randomCheckpoint(t *testing.T, dir string, dims ...int64) (string, []byte) {
	t.Helper()
	w := buffer.MustNew(layout.NewShape(layout.F32, dims...))
	r := rand.New(rand.NewPCG(uint64(len(dims)), uint64(dims[len(dims)-1])))
	for i := 0; i < len(w.Data); i += 4 {
		binary.LittleEndian.PutUint32(w.Data[i:], math.Float32bits(float32(r.NormFloat64())))
	}
	return testfiles.WriteCheckpoint(t, dir, "w.safetensors", safetensors.NamedBuffer{Name: "w", Buf: w}), w.Data
}

// TestGatherMapped gathers conversions of odd sizes (images with tile padding, a last
// band shorter than the others), replicated shards, 3-D arrays and bf16 images three
// ways: banded from the mapped images straight into the rows (the default), banded by
// reading the images (a bucket's way), and whole (relaid out and scattered shard by
// shard); all three write the same bytes, and an f32 gather the source's.
func TestGatherMapped(t *testing.T) {
	savedBand, savedMap := gatherBandBytes, mapShards
	defer func() { gatherBandBytes, mapShards = savedBand, savedMap }()
	cases := []struct {
		dims       []int64
		mesh, spec string
		dtype      string
		bandBytes  int64
	}{
		{[]int64{40, 390}, "data=2,model=3", `P("data", "model")`, "", 4096},
		{[]int64{40, 390}, "data=2,model=3", `P("data", "model")`, "bf16", 2048},
		{[]int64{64, 256}, "data=2,model=2", `P("data")`, "", 8192}, // replicated over model
		{[]int64{48, 300}, "data=2,model=2", `P("model", "data")`, "", 4096},
		{[]int64{32, 6, 260}, "data=2,model=2", `P("data", None, "model")`, "", 4096},
		{[]int64{24, 4, 130}, "data=2,model=2", `P("data", "model")`, "bf16", 3000},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%v %s %s %s", c.dims, c.mesh, c.spec, c.dtype)
		dir := t.TempDir()
		ckpt, src := randomCheckpoint(t, dir, c.dims...)
		out := filepath.Join(dir, "out")
		if _, err := Convert(ConvertOptions{Checkpoint: ckpt, Out: out, Mesh: c.mesh, Spec: c.spec, To: "tpu:v5e", DType: c.dtype}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, err := ReadManifest(filepath.Join(out, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		tm := m.Tensors[0]
		img := layout.MustParse(tm.Layout)
		b, ok := relayout.PlanBands(rowMajor(img.DType, img.Dims), img, c.bandBytes)
		if !ok || b.Len() < 3 {
			t.Fatalf("%s: %s is not gathered in 3 bands or more of %d bytes", name, tm.Layout, c.bandBytes)
		}
		if _, err := newWindowPlans(b, tm.Shape, true); err != nil {
			t.Fatalf("%s: no window plans: %v", name, err)
		}
		got := map[string][]byte{}
		for _, way := range []struct {
			name string
			band int64
			mapd bool
		}{{"mapped", c.bandBytes, true}, {"read", c.bandBytes, false}, {"whole", 1 << 40, true}} {
			gatherBandBytes, mapShards = way.band, way.mapd
			path := filepath.Join(dir, way.name+".safetensors")
			if _, err := Gather(out, path); err != nil {
				t.Fatalf("%s: %s gather: %v", name, way.name, err)
			}
			g, err := safetensors.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			buf, err := g.Read("w")
			if err != nil {
				t.Fatal(err)
			}
			got[way.name] = bytes.Clone(buf.Data)
			buf.Close()
		}
		if !bytes.Equal(got["mapped"], got["whole"]) || !bytes.Equal(got["read"], got["whole"]) {
			t.Errorf("%s: mapped %v, read %v the same as whole", name,
				bytes.Equal(got["mapped"], got["whole"]), bytes.Equal(got["read"], got["whole"]))
		}
		if c.dtype == "" && !bytes.Equal(got["mapped"], src) {
			t.Errorf("%s: the gathered f32 tensor is not the source", name)
		}
	}
}
