package sharding

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// serverURL points srv's scheme at it and returns the URL of name in a new bucket of
// it.
func serverURL(t *testing.T, srv storetest.Server, name string) string {
	t.Helper()
	srv.Point(t, srv.Endpoint)
	return srv.Scheme + "://" + srv.NewBucket(t) + "/" + name
}

// openURL opens the bucket of url and returns it with the key url names in it.
func openURL(t testing.TB, url string) (*store.Bucket, string) {
	t.Helper()
	b, key, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return b, key
}

// put puts data in b as key.
func put(t testing.TB, b *store.Bucket, key string, data []byte) {
	t.Helper()
	if err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

// failingAfter returns the endpoint of a proxy to srv that passes the first n reads
// of a range and answers each later one with the next of faults, in turn.
func failingAfter(t *testing.T, srv storetest.Server, n int, faults ...storetest.Fault) string {
	var mu sync.Mutex
	k := 0
	_, proxy := storetest.NewProxy(t, srv.Endpoint, func(int) storetest.Fault {
		mu.Lock()
		defer mu.Unlock()
		if k++; k <= n {
			return storetest.Pass
		}
		return faults[(k-n-1)%len(faults)]
	})
	return proxy
}

// uploadTo points srv's scheme at it and puts data in a new bucket of it as name,
// returning the object's URL.
func uploadTo(t *testing.T, srv storetest.Server, name string, data []byte) string {
	t.Helper()
	url := serverURL(t, srv, name)
	b, key := openURL(t, url)
	put(t, b, key, data)
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
	b, key := openURL(t, src)
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

// TestServerConversionRequests converts a 4 MiB checkpoint from each test server
// through a proxy that counts requests and connections: the source is asked for
// about once per read of maxSpan bytes (its fingerprint taken from those reads, not
// from 257 requests of its own), over about as many connections as reads in flight.
func TestServerConversionRequests(t *testing.T) {
	defer setSpans(256<<10, maxGap, RemoteAheadBytes)()
	dir := t.TempDir()
	in := writeRandomCheckpoint(t, dir, 9, 10, "f32[512,1024]", "f32[512,1024]")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	opt := gridOptions("data=2,model=4", rowMajorBF16)
	want := filepath.Join(dir, "want")
	wm := convertLocal(t, in, want, opt)
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			url := uploadTo(t, srv, "m.safetensors", data)
			p, proxy := storetest.NewProxy(t, srv.Endpoint, func(int) storetest.Fault { return storetest.Pass })
			srv.Point(t, proxy)
			ckpt, err := OpenCheckpoint(url)
			if err != nil {
				t.Fatal(err)
			}
			got := filepath.Join(t.TempDir(), "out")
			m, err := convertDir(ckpt, got, opt)
			if err != nil {
				t.Fatal(err)
			}
			sameFiles(t, want, got)
			if m.Sources[0].Fingerprint != wm.Sources[0].Fingerprint {
				t.Errorf("fingerprint %s from the bucket, %s from the file", m.Sources[0].Fingerprint, wm.Sources[0].Fingerprint)
			}
			// The header, one read per maxSpan (a band's reads end at the band's end:
			// at most one more a band), and the blocks that straddle two reads.
			reads := int(int64(len(data))/maxSpan) + 1
			if gets := p.Requests("GET"); gets > 2*reads+2 {
				t.Errorf("%d GETs for %d bytes in reads of %d; want at most %d", gets, len(data), maxSpan, 2*reads+2)
			}
			if c := p.Conns(); c > RemoteInFlight+2 {
				t.Errorf("%d connections for %d reads in flight", c, RemoteInFlight)
			}
		})
	}
}

// TestServerReadImageURL reads an object of each test server whole by ranges into a
// buffer of the manifest's size for it, and refuses one of another size naming it and
// both sizes, and a name that leaves the prefix.
func TestServerReadImageURL(t *testing.T) {
	defer setSpans(maxSpan, maxGap, RemoteAheadBytes)()
	aheadSpan = 1000 // several reads
	data := make([]byte, 4321)
	for i := range data {
		data[i] = byte(i * 29)
	}
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			out := strings.TrimSuffix(uploadTo(t, srv, "conv/w/0_0.bin", data), "/w/0_0.bin")
			got := make([]byte, len(data))
			if err := ReadImageURL(out, "w/0_0.bin", got); err != nil || !bytes.Equal(got, data) {
				t.Errorf("read %v, equal %v", err, bytes.Equal(got, data))
			}
			err := ReadImageURL(out+"/", "w/0_0.bin", make([]byte, 10))
			if want := out + "/w/0_0.bin is 4321 bytes, the manifest says 10"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("wrong size: %v; want %q", err, want)
			}
			if err := ReadImageURL(out, "../x.bin", got); err == nil || !strings.Contains(err.Error(), "is not a file under") {
				t.Errorf("../x.bin: %v", err)
			}
		})
	}
}
