package sharding

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestGatherOutdir gathers a conversion and refuses to write over its source or to a
// file that is not .safetensors.
func TestGatherOutdir(t *testing.T) {
	dir, src, out := convertMesh2D(t)
	data, _ := os.ReadFile(src)
	m, err := GatherOutdir(out, filepath.Join(dir, "g.safetensors"))
	if err != nil || len(m.Tensors) != 1 {
		t.Fatalf("gather: %v", err)
	}
	g, _ := os.ReadFile(filepath.Join(dir, "g.safetensors"))
	orig, _ := safetensors.List(src)
	back, _ := safetensors.List(filepath.Join(dir, "g.safetensors"))
	if len(g) == 0 || len(orig) != len(back) || orig[0].Name != back[0].Name {
		t.Errorf("gathered %v from %v", back, orig)
	}
	for _, bad := range []string{src, filepath.Join(dir, "g.bin")} {
		_, err := GatherOutdir(out, bad)
		var ce *ConvertError
		if !errors.As(err, &ce) || !ce.Setting {
			t.Errorf("gather to %s: %v", bad, err)
		}
	}
	if now, _ := os.ReadFile(src); !bytes.Equal(now, data) {
		t.Error("gather changed its source")
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

// TestGatherFileTemps: GatherFile tells the Outdir's Temps of the temporary file it
// writes OUT through, so that a command can remove it on a signal, and of its end.
func TestGatherFileTemps(t *testing.T) {
	dir, _, out := convertMesh2D(t)
	o, err := OpenOutdir(out)
	if err != nil {
		t.Fatal(err)
	}
	var tracked, untracked []string
	o.Temps = convert.TempFuncs{
		TrackFn:   func(p string) { tracked = append(tracked, p) },
		UntrackFn: func(p string) { untracked = append(untracked, p) },
	}
	file := filepath.Join(dir, "g.safetensors")
	if _, err := o.GatherFile(file, nil); err != nil {
		t.Fatal(err)
	}
	if len(tracked) != 1 || filepath.Dir(tracked[0]) != dir || !strings.Contains(filepath.Base(tracked[0]), "g.safetensors") {
		t.Fatalf("tracked %q, want the one temporary file beside %s", tracked, file)
	}
	if len(untracked) != 1 || untracked[0] != tracked[0] {
		t.Errorf("untracked %q, want %q", untracked, tracked)
	}
}

// TestGatherBanded gathers every NumPy fixture's conversion twice, band by band (tiny
// bands) and whole (bands larger than any tensor), and checks that both write the same
// file, and that a changed byte in a shard fails the banded gather too.
func TestGatherBanded(t *testing.T) {
	saved := gatherBandBytes
	defer func() { gatherBandBytes = saved }()
	banded := 0
	for _, c := range readFixtures(t) {
		mesh, spec, dst := c.parse(t)
		ckpt, err := OpenCheckpoint(filepath.Join(fixtureDir, c.Name+".safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		m, err := convertDir(ckpt, out, jobOptions{Mesh: mesh, SpecFor: specAll(spec), Target: targetAll(dst)})
		if err != nil {
			t.Fatal(err)
		}
		whole, piece := filepath.Join(dir, "whole.safetensors"), filepath.Join(dir, "banded.safetensors")
		gatherBandBytes = 1 << 40
		if _, err := Gather(out, whole); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		gatherBandBytes = 1024
		if _, err := Gather(out, piece); err != nil {
			t.Fatalf("%s: banded: %v", c.Name, err)
		}
		w, _ := os.ReadFile(whole)
		p, _ := os.ReadFile(piece)
		if !bytes.Equal(w, p) {
			t.Errorf("%s (%s, %s on %s): the banded gather differs from the whole one", c.Name, c.Layout, c.Spec, c.Mesh)
		}
		tm := m.Tensors[0]
		pl, _ := placement.Place(mesh, spec, tm.Shape)
		if ok, _ := gatherBanded(io.Discard, dirOut(out), tm, dst, pl, &scratch{}); !ok {
			continue // gathered whole both times
		}
		banded++
		// A changed byte in the last shard's last band.
		last := filepath.Join(out, tm.Shards[len(tm.Shards)-1].File)
		img, _ := os.ReadFile(last)
		img[len(img)-1] ^= 1
		os.WriteFile(last, img, 0o644)
		if _, err := Gather(out, piece); err == nil || !strings.Contains(err.Error(), "does not match its crc32c") {
			t.Errorf("%s: banded gather of a changed shard: %v", c.Name, err)
		}
	}
	if banded == 0 {
		t.Error("no fixture was gathered in bands")
	}
	t.Logf("%d fixtures gathered in bands", banded)
}

// randomCheckpoint writes a safetensors file of one f32 tensor "w" of dims, of random
// finite values, and returns its path and the tensor's bytes.
func randomCheckpoint(t *testing.T, dir string, dims ...int64) (string, []byte) {
	t.Helper()
	w := testfiles.RandomBuffer(t, layout.NewShape(layout.F32, dims...).String(), uint64(dims[len(dims)-1]))
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

// TestServerGatherAhead gathers a conversion from a bucket of each test server, its
// images read ahead in many small bands (reads split in requests of 1 KiB, buffers
// for three bands), through a proxy that fails the first request for each range in
// one of its ways: the same bytes as gathered from the directory, every band served
// from the reads ahead, several requests in flight. Then through a proxy that fails
// everything after a few requests: an error naming the bucket, and the buffers
// unmapped once the reads in flight have ended.
func TestServerGatherAhead(t *testing.T) {
	dir := t.TempDir()
	in := writeRandomCheckpoint(t, dir, 11, 12, "f32[256,384]", "f32[64,256]")
	opt := gridOptions("data=2,model=2", tiledBF16)
	conv := filepath.Join(dir, "conv")
	convertLocal(t, in, conv, opt)
	oldBand, oldBucketBand := gatherBandBytes, gatherBucketBandBytes
	gatherBandBytes, gatherBucketBandBytes = 8<<10, 8<<10
	defer func() { gatherBandBytes, gatherBucketBandBytes = oldBand, oldBucketBand }()
	defer setSpans(1<<10, maxGap, 3*(4<<10))()
	var want bytes.Buffer
	if _, err := GatherTo(&want, conv); err != nil {
		t.Fatal(err)
	}
	oldRetry := store.DefaultRetry
	defer func() { store.DefaultRetry = oldRetry }()
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			out := serverURL(t, srv, "conv")
			b, key := openURL(t, out)
			for rel, data := range readTree(t, conv) {
				put(t, b, key+"/"+rel, data)
			}
			store.DefaultRetry = store.Retry{Tries: 6, First: time.Millisecond, Max: 10 * time.Millisecond, Timeout: 2 * time.Second}
			var mu sync.Mutex
			n := 0
			p, proxy := storetest.NewProxy(t, srv.Endpoint, func(tries int) storetest.Fault {
				mu.Lock()
				defer mu.Unlock()
				if tries > 0 {
					return storetest.Pass
				}
				n++
				return []storetest.Fault{storetest.Pass, storetest.Status, storetest.Drop, storetest.Stall}[n%4]
			})
			srv.Point(t, proxy)
			hits, misses := gatherAheadHits.Load(), gatherAheadMisses.Load()
			var got bytes.Buffer
			if _, err := GatherTo(&got, out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Error("gathered from the bucket, the file differs from the one gathered from the directory")
			}
			if n := gatherAheadMisses.Load() - misses; n != 0 {
				t.Errorf("%d reads were not the next announced one (gatherReads does not follow gatherBanded)", n)
			}
			if h := gatherAheadHits.Load() - hits; h < 16 {
				t.Errorf("%d reads served from the reads ahead; want every band's", h)
			}
			if p.MostInFlight() < 2 || p.Seen(storetest.Status) == 0 || p.Seen(storetest.Drop) == 0 {
				t.Errorf("at most %d requests in flight, %d 503s, %d drops; want several of each",
					p.MostInFlight(), p.Seen(storetest.Status), p.Seen(storetest.Drop))
			}

			store.DefaultRetry = store.Retry{Tries: 2, First: time.Millisecond, Max: time.Millisecond, Timeout: 2 * time.Second}
			srv.Point(t, failingAfter(t, srv, 7, storetest.Status))
			_, err := GatherTo(&got, out)
			if err == nil || !strings.Contains(err.Error(), out) {
				t.Errorf("gather through the failing proxy: %v", err)
			}
			if !waitUnmapped(10 * time.Second) {
				t.Errorf("%d read buffers still mapped after the failed gather", spansMapped.Load())
			}
		})
	}
}
