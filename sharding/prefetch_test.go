package sharding

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
	in := filepath.Join(dir, "m.safetensors")
	writeRandomCheckpoint(t, in, 3, 4, "f32[64,96]", "bf16[48,256]", "f32[128,40]", "f32[16]", "bf16[8,8,24]")
	mesh, _ := placement.ParseMesh("data=2,model=4", nil)
	opt := jobOptions{Mesh: mesh,
		SpecFor: func(name string) (placement.Spec, error) {
			if name == "d" {
				return placement.ParseSpec(`P("model")`)
			}
			return placement.ParseSpec(`P("data", "model")`)
		},
		Target: tiledBF16}
	local, err := OpenCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want")
	if _, err := convertDir(local, want, opt); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, key, err := store.Open(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
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
			srv.Point(t, srv.Endpoint)
			split := srv.Scheme + "://" + srv.NewBucket(t) + "/split"
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
			ckptURL := srv.Scheme + "://" + srv.NewBucket(t) + "/m.safetensors"
			cb, ckey, _ := store.Open(ctx, ckptURL)
			if err := cb.Put(ctx, ckey, bytes.NewReader(data), int64(len(data)), nil); err != nil {
				t.Fatal(err)
			}
			oldRetry := store.DefaultRetry
			store.DefaultRetry = store.Retry{Tries: 2, First: time.Millisecond, Max: time.Millisecond, Timeout: 5 * time.Second}
			defer func() { store.DefaultRetry = oldRetry }()
			var mu sync.Mutex
			n := 0
			_, proxy := storetest.NewProxy(t, srv.Endpoint, func(int) storetest.Fault {
				mu.Lock()
				defer mu.Unlock()
				if n++; n < 12 {
					return storetest.Pass
				}
				return []storetest.Fault{storetest.Status, storetest.Stall}[n%2]
			})
			srv.Point(t, proxy)
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
