package sharding

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestFromAheadBands converts a checkpoint read by ranges (the store's file bucket)
// whose bands are relaid out straight from the fetched buffers (fromAhead), against
// the conversion of the mapped file, byte for byte. The shards have odd sizes (image
// padding in both dims, a last band shorter than the others, rows of 400 to 16000
// bytes), two targets, one process and two. With buffers that hold a step, every
// band goes straight from them; with reads smaller than a step (windows across two
// pieces, whose bytes past the first are not in its buffer, slack or not) and with no
// slack after the buffers (the footprints of shards right of the first column run
// past them), some bands are copied first and the rest still go straight. Bands
// whose rows would not fit a buffer are narrowed until they do.
func TestFromAheadBands(t *testing.T) {
	in, want := fromAheadCheckpoint(t)
	b, key, err := store.Open(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	fromAheadCases(t, b, key, want, false)
}

// TestServerFromAheadBands is TestFromAheadBands reading from each test server.
func TestServerFromAheadBands(t *testing.T) {
	in, want := fromAheadCheckpoint(t)
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			b, key, _ := store.Open(context.Background(), uploadTo(t, srv, "m.safetensors", data))
			fromAheadCases(t, b, key, want, true)
		})
	}
}

// fromAheadOptions convert every tensor with P("data", "model") on data=2,model=4:
// c into f32 T(8,128), the others into bf16 T(8,128)(2,1).
func fromAheadOptions() jobOptions {
	mesh, _ := placement.ParseMesh("data=2,model=4", nil)
	return jobOptions{Mesh: mesh,
		SpecFor: func(string) (placement.Spec, error) { return placement.ParseSpec(`P("data", "model")`) },
		Target: func(ti safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) {
			if ti.Name == "c" {
				return layout.Parse(fmt.Sprintf("f32[%d,%d]{1,0:T(8,128)}", s.Dims[0], s.Dims[1]))
			}
			return tiledBF16(ti, s)
		}}
}

// fromAheadCheckpoint writes the tests' checkpoint and returns its path and what
// gives the local conversion of the names (nil: all) with fromAheadOptions.
func fromAheadCheckpoint(t *testing.T) (string, func(names []string) string) {
	dir := t.TempDir()
	in := filepath.Join(dir, "m.safetensors")
	writeRandomCheckpoint(t, in, 5, 6, "f32[36,100]", "f32[64,96]", "bf16[40,264]", "f32[64,4000]", "f32[104,8]")
	local, err := OpenCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	wants := map[string]string{} // the local conversion of the names, by them
	return in, func(names []string) string {
		k := fmt.Sprint(names)
		if wants[k] == "" {
			wants[k] = filepath.Join(dir, fmt.Sprint("want", len(wants)))
			o := fromAheadOptions()
			o.Names = names
			if _, err := convertDir(local, wants[k], o); err != nil {
				t.Fatal(err)
			}
		}
		return wants[k]
	}
}

// fromAheadCases converts the checkpoint at key in b as TestFromAheadBands says;
// short leaves out the cases of two processes.
func fromAheadCases(t *testing.T, b *store.Bucket, key string, want func([]string) string, short bool) {
	ctx := context.Background()
	oldBand, oldSlack := RemoteBandBytes, aheadSlack
	defer func() { RemoteBandBytes, aheadSlack = oldBand, oldSlack }()
	for _, c := range []struct {
		name              string
		band, span, slack int64
		processes         int
		all               bool     // every band straight from the buffers
		names             []string // the tensors converted; nil: all
	}{
		// 8 KiB bands: a few rows each, the last one shorter.
		{"steps in one buffer", 8192, 1 << 20, 1 << 20, 0, true, nil},
		{"two processes", 8192, 1 << 20, 1 << 20, 2, true, nil},
		{"steps across buffers", 8192, 3000, 1 << 20, 0, false, nil},
		{"steps across buffers, no slack", 8192, 3000, 0, 0, false, nil},
		{"two processes, steps across buffers", 8192, 3000, 0, 2, false, nil},
		// d's shards, in bands of 16 rows, would fetch 250 KiB of rows a step: its
		// bands are narrowed to 8 rows (125 KiB) to fit a buffer (fitSteps).
		{"bands narrowed to fit", 128 << 10, 160 << 10, 1 << 20, 0, true, []string{"d"}},
	} {
		if short && c.processes > 1 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			defer setSpans(c.span, 64, 4*c.span)()
			RemoteBandBytes, aheadSlack = c.band, c.slack
			got := filepath.Join(t.TempDir(), "got")
			hits, misses, direct := aheadHits.Load(), aheadMisses.Load(), aheadDirect.Load()
			for p := range max(c.processes, 1) {
				ckpt, err := openBucketCheckpoint(ctx, b, key)
				if err != nil {
					t.Fatal(err)
				}
				o := fromAheadOptions()
				o.Process, o.Processes, o.Names = p, c.processes, c.names
				if _, err := convertDir(ckpt, got, o); err != nil {
					t.Fatal(err)
				}
			}
			sameFiles(t, want(c.names), got)
			hits, direct = aheadHits.Load()-hits, aheadDirect.Load()-direct
			if n := aheadMisses.Load() - misses; n != 0 {
				t.Errorf("%d windows were not the next announced one", n)
			}
			if c.all && (hits == 0 || direct != hits) {
				t.Errorf("%d of %d windows relaid out straight from the fetched bytes, want all", direct, hits)
			}
			if !c.all && (direct == 0 || direct == hits) {
				t.Errorf("%d of %d windows relaid out straight from the fetched bytes, want some and not all", direct, hits)
			}
		})
	}
}
