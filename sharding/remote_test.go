package sharding

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"

	"github.com/tpulayout/tpulayout/store"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// openFixture opens a fixture's checkpoint in checkFixture; the tests below point it
// at a bucket.
var openFixture = OpenCheckpoint

// fixturesVia runs the NumPy fixtures with their checkpoints opened by open.
func fixturesVia(t *testing.T, open func(path string) (*Checkpoint, error)) {
	old := openFixture
	openFixture = open
	defer func() { openFixture = old }()
	TestFixtures(t)
}

// setSpans sets the reads' sizes (maxSpan and aheadSpan both span), the widest gap
// read and dropped, and the bytes read ahead, and returns what restores them.
func setSpans(span, gap, ahead int64) (restore func()) {
	old := []int64{maxSpan, aheadSpan, maxGap, RemoteAheadBytes}
	maxSpan, aheadSpan, maxGap, RemoteAheadBytes = span, span, gap, ahead
	return func() { maxSpan, aheadSpan, maxGap, RemoteAheadBytes = old[0], old[1], old[2], old[3] }
}

// uploadTo points srv's scheme at it and puts data in a new bucket of it as name,
// returning the object's URL.
func uploadTo(t *testing.T, srv storetest.Server, name string, data []byte) string {
	t.Helper()
	srv.Point(t, srv.Endpoint)
	url := srv.Scheme + "://" + srv.NewBucket(t) + "/" + name
	ctx := context.Background()
	b, key, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
	return url
}

// TestFixturesByRanges converts every NumPy fixture reading its checkpoint by
// ranges (through the store's file bucket, so without a server), with reads cut to
// 64 bytes, gaps of up to 40 bytes read and dropped, and three reads' worth fetched
// ahead (so buffers are reused and the fetcher waits for the conversion): each
// image equals NumPy's, and every window came from the bytes fetched ahead.
func TestFixturesByRanges(t *testing.T) {
	defer setSpans(64, 40, 3*64)()
	hits, misses := aheadHits.Load(), aheadMisses.Load()
	defer func() {
		if n := aheadMisses.Load() - misses; n != 0 {
			t.Errorf("%d windows were not the next announced one (announce does not follow writeGroup)", n)
		}
		if aheadHits.Load() == hits {
			t.Error("no window came from the bytes fetched ahead")
		}
	}()
	ctx := context.Background()
	fixturesVia(t, func(path string) (*Checkpoint, error) {
		b, key, err := store.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		c, err := openBucketCheckpoint(ctx, b, key)
		if err == nil && len(c.Tensors) > 0 {
			if _, ok := c.file(c.Tensors[0].File).(*objectCkpt); !ok {
				t.Fatal("checkpoint not read by ranges")
			}
		}
		return c, err
	})
}

// TestFixturesFromServers converts every fixture from a checkpoint in a bucket of
// each test server, as s3:// and gs:// URLs.
func TestFixturesFromServers(t *testing.T) {
	ctx := context.Background()
	for _, s := range storetest.All(t) {
		t.Run(s.Name(), func(t *testing.T) {
			s.Point(t, s.Endpoint)
			bucket := s.NewBucket(t)
			prefix := s.Scheme + "://" + bucket + "/ckpt/"
			b, _, err := store.Open(ctx, prefix)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range readFixtures(t) {
				data, err := os.ReadFile(filepath.Join(fixtureDir, c.Name+".safetensors"))
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Put(ctx, "ckpt/"+c.Name+".safetensors", bytes.NewReader(data), int64(len(data)), nil); err != nil {
					t.Fatal(err)
				}
			}
			fixturesVia(t, func(path string) (*Checkpoint, error) {
				return OpenCheckpoint(prefix + filepath.Base(path))
			})
		})
	}
}

// TestCheckpointChangesDuringRun: the checkpoint object is replaced by a shorter one
// between reading its header and its tensors; the conversion fails naming it, and
// leaves no output directory.
func TestCheckpointChangesDuringRun(t *testing.T) {
	ctx := context.Background()
	c := readFixtures(t)[0]
	data, err := os.ReadFile(filepath.Join(fixtureDir, c.Name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "model.safetensors")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, key, err := store.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	ckpt, err := openBucketCheckpoint(ctx, b, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data[:len(data)-8], 0o644); err != nil {
		t.Fatal(err)
	}
	mesh, spec, _ := c.parse(t)
	out := filepath.Join(t.TempDir(), "out")
	_, err = convertDir(ckpt, out, jobOptions{Mesh: mesh,
		SpecFor: specAll(spec),
		Target: func(_ safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error) {
			return rowMajor(shard.DType, shard.Dims), nil
		}})
	if !errors.Is(err, store.ErrChanged) || !strings.Contains(err.Error(), src) {
		t.Errorf("conversion of a changed checkpoint: %v", err)
	}
	if !waitUnmapped(5 * time.Second) {
		t.Errorf("%d read buffers still mapped after the failed conversion", spansMapped.Load())
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
		t.Errorf("left %d entries beside OUT", len(ents))
	}
}
