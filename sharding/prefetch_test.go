package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestServerPrefetchManyTensors converts a checkpoint of several tensors (of two dtypes,
// into tiled bf16 layouts, grouped bands and not) read by ranges, with reads of 256
// bytes, small bands and two reads' worth of buffers shared by the tensors'
// fetchers, against the same conversion of the mapped file: every image equal, and
// every window gathered from bytes fetched ahead. Then a rerun after one image is
// removed (as a killed process leaves it) skips the rest's groups and still gathers
// every window it converts from the announced ones.
func TestServerPrefetchManyTensors(t *testing.T) {
	defer setSpans(256, 64, 2*256)()
	oldBand := RemoteBandBytes
	RemoteBandBytes = 4096
	defer func() { RemoteBandBytes = oldBand }()
	dir := t.TempDir()
	in := writeRandomCheckpoint(t, dir, 3, 4, "f32[64,96]", "bf16[48,256]", "f32[128,40]", "f32[16]", "bf16[8,8,24]")
	mesh, _ := placement.ParseMesh("data=2,model=4", nil)
	opt := jobOptions{Mesh: mesh,
		SpecFor: func(name string) (placement.Spec, error) {
			if name == "d" {
				return placement.ParseSpec(`P("model")`)
			}
			return placement.ParseSpec(`P("data", "model")`)
		},
		Target: tiledBF16}
	want := filepath.Join(dir, "want")
	convertLocal(t, in, want, opt)
	ctx := context.Background()
	b, key := openURL(t, in)
	convert := func(out string, processes int) {
		t.Helper()
		hits, misses := aheadHits.Load(), aheadMisses.Load()
		for p := range max(processes, 1) {
			ckpt, err := openBucketCheckpoint(ctx, b, key)
			if err != nil {
				t.Fatal(err)
			}
			o := opt
			o.Process, o.Processes = p, processes
			if _, err := convertDir(ckpt, out, o); err != nil {
				t.Fatal(err)
			}
		}
		if n := aheadMisses.Load() - misses; n != 0 {
			t.Errorf("%d windows were not the next announced one", n)
		}
		if aheadHits.Load() == hits {
			t.Error("no window came from the bytes fetched ahead")
		}
	}
	got := filepath.Join(dir, "got")
	convert(got, 0)
	sameFiles(t, want, got)
	if !waitUnmapped(5 * time.Second) {
		t.Errorf("%d read buffers still mapped after the conversion", spansMapped.Load())
	}
	// Into a bucket of each test server, the second of two processes; then one image
	// deleted, as a killed process leaves it, and the process run again: the groups
	// whose images are there are skipped, and left out of what is announced.
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			split := serverURL(t, srv, "split")
			run := func() int64 {
				t.Helper()
				ckpt, err := openBucketCheckpoint(ctx, b, key)
				if err != nil {
					t.Fatal(err)
				}
				o := opt
				o.Process, o.Processes = 1, 2
				j, err := prepare(ckpt, o)
				if err != nil {
					t.Fatal(err)
				}
				hits, misses := aheadHits.Load(), aheadMisses.Load()
				m, err := j.writeURL(split)
				if err != nil {
					t.Fatal(err)
				}
				if n := aheadMisses.Load() - misses; n != 0 {
					t.Errorf("%d windows were not the next announced one", n)
				}
				if hits := aheadHits.Load() - hits; hits > 0 {
					return hits
				}
				// Nothing converted: delete an image for the rerun.
				sh := m.Tensors[3].Shards // d: a group a shard; the last, so announcing skipped groups would put others first
				ob, okey, _ := store.Open(ctx, split+"/"+sh[len(sh)-1].File)
				if err := ob.Delete(ctx, okey); err != nil {
					t.Fatal(err)
				}
				return 0
			}
			all := run()
			if n := run(); n != 0 {
				t.Fatalf("a rerun of a finished process gathered %d windows", n)
			}
			if again := run(); again == 0 || again >= all {
				t.Errorf("the rerun gathered %d windows, the first run %d", again, all)
			}

			// From the bucket through a proxy that, after the first reads, fails every
			// other one and slows the rest: the conversion fails naming the object, and
			// the read buffers are unmapped once the reads in flight have ended.
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			ckptURL := uploadTo(t, srv, "m.safetensors", data)
			oldRetry := store.DefaultRetry
			store.DefaultRetry = store.Retry{Tries: 2, First: time.Millisecond, Max: time.Millisecond, Timeout: 5 * time.Second}
			defer func() { store.DefaultRetry = oldRetry }()
			srv.Point(t, failingAfter(t, srv, 11, storetest.Status, storetest.Stall))
			ckpt, err := OpenCheckpoint(ckptURL)
			if err != nil {
				t.Fatal(err)
			}
			_, err = convertDir(ckpt, filepath.Join(t.TempDir(), "out"), opt)
			if err == nil || !strings.Contains(err.Error(), ckptURL) {
				t.Errorf("conversion through the failing proxy: %v", err)
			}
			if !waitUnmapped(10 * time.Second) {
				t.Errorf("%d read buffers still mapped after the failed conversion", spansMapped.Load())
			}
		})
	}
}

// sameFiles fails unless every image file of the conversion in a is in b, equal.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	m, err := ReadManifest(filepath.Join(a, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range m.Tensors {
		for _, ms := range mt.Shards {
			x, err1 := os.ReadFile(filepath.Join(a, ms.File))
			y, err2 := os.ReadFile(filepath.Join(b, ms.File))
			if err1 != nil || err2 != nil || string(x) != string(y) {
				t.Errorf("%s differs (%v, %v)", ms.File, err1, err2)
			}
		}
	}
}

// TestSpansReleaseWaitsForReads: the read buffers are unmapped only after the
// fetchers have returned and the reads in flight have ended, not before.
func TestSpansReleaseWaitsForReads(t *testing.T) {
	sp := &spans{free: make(chan []byte, 1)}
	sp.free <- nil
	buf := sp.get(nil)
	pf := &prefetch{issued: make(chan struct{})}
	sp.reads.Add(1) // a read into buf, still running
	mapped := spansMapped.Load()
	done := make(chan struct{})
	go func() { sp.release([]*prefetch{pf}); close(done) }()
	close(pf.issued)
	time.Sleep(50 * time.Millisecond)
	if spansMapped.Load() != mapped {
		t.Fatal("the buffers were unmapped with a read in flight")
	}
	buf[len(buf)-1] = 1 // the read writes: still mapped
	sp.reads.Done()
	<-done
	if mapped > 0 && spansMapped.Load() != mapped-1 {
		t.Errorf("%d buffers mapped after the release, want %d", spansMapped.Load(), mapped-1)
	}
}

// TestMergeLists: merging sorted lists gives what sorting them all does, for lists
// that interleave, overlap, touch and are empty, and for more lists than it merges.
func TestMergeLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 200 {
		k := 1 + trial%11
		var rs []run
		var ends []int
		for range k {
			var off int64
			for range rng.IntN(6) {
				off += rng.Int64N(5)
				n := 1 + rng.Int64N(4)
				rs = append(rs, run{off: off, n: n})
				off += n
			}
			ends = append(ends, len(rs))
		}
		got := mergeLists(slices.Clone(rs), ends)
		want := mergeRuns(slices.Clone(rs))
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("lists %v ending at %v: merged %v, sorted %v", rs, ends, got, want)
		}
	}
}

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
	return gridOptions("data=2,model=4", func(ti safetensors.TensorInfo, s layout.Shape) (layout.Shape, error) {
		if ti.Name == "c" {
			return layout.Parse(fmt.Sprintf("f32[%d,%d]{1,0:T(8,128)}", s.Dims[0], s.Dims[1]))
		}
		return tiledBF16(ti, s)
	})
}

// fromAheadCheckpoint writes the tests' checkpoint and returns its path and what
// gives the local conversion of the names (nil: all) with fromAheadOptions.
func fromAheadCheckpoint(t *testing.T) (string, func(names []string) string) {
	dir := t.TempDir()
	in := writeRandomCheckpoint(t, dir, 5, 6, "f32[36,100]", "f32[64,96]", "bf16[40,264]", "f32[64,4000]", "f32[104,8]")
	wants := map[string]string{} // the local conversion of the names, by them
	return in, func(names []string) string {
		k := fmt.Sprint(names)
		if wants[k] == "" {
			wants[k] = filepath.Join(dir, fmt.Sprint("want", len(wants)))
			o := fromAheadOptions()
			o.Names = names
			convertLocal(t, in, wants[k], o)
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
