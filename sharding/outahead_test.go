package sharding

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestServerGatherAhead gathers a conversion from a bucket of each test server, its
// images read ahead in many small bands (reads split in requests of 1 KiB, buffers
// for three bands), through a proxy that fails the first request for each range in
// one of its ways: the same bytes as gathered from the directory, every band served
// from the reads ahead, several requests in flight. Then through a proxy that fails
// everything after a few requests: an error naming the bucket, and the buffers
// unmapped once the reads in flight have ended.
func TestServerGatherAhead(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "m.safetensors")
	writeRandomCheckpoint(t, in, 11, 12, "f32[256,384]", "f32[64,256]")
	mesh, _ := placement.ParseMesh("data=2,model=2", nil)
	opt := jobOptions{Mesh: mesh,
		SpecFor: func(string) (placement.Spec, error) { return placement.ParseSpec(`P("data", "model")`) },
		Target:  tiledBF16}
	ckpt, err := OpenCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(dir, "conv")
	if _, err := convertDir(ckpt, conv, opt); err != nil {
		t.Fatal(err)
	}
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
	ctx := context.Background()
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			srv.Point(t, srv.Endpoint)
			out := srv.Scheme + "://" + srv.NewBucket(t) + "/conv"
			b, key, _ := store.Open(ctx, out)
			err := filepath.WalkDir(conv, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(conv, p)
				return b.Put(ctx, key+"/"+filepath.ToSlash(rel), bytes.NewReader(data), int64(len(data)), nil)
			})
			if err != nil {
				t.Fatal(err)
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
			k := 0
			_, bad := storetest.NewProxy(t, srv.Endpoint, func(int) storetest.Fault {
				mu.Lock()
				defer mu.Unlock()
				if k++; k < 8 {
					return storetest.Pass
				}
				return storetest.Status
			})
			srv.Point(t, bad)
			_, err = GatherTo(&got, out)
			if err == nil || !strings.Contains(err.Error(), out) {
				t.Errorf("gather through the failing proxy: %v", err)
			}
			if !waitUnmapped(10 * time.Second) {
				t.Errorf("%d read buffers still mapped after the failed gather", spansMapped.Load())
			}
		})
	}
}
