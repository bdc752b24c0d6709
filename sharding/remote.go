package sharding

// This file reads a checkpoint from an object store (s3://, gs://): the safetensors
// headers once, then only the byte ranges of the windows that the shards being
// written need, several requests in flight; nothing is copied to local disk.

import (
	"context"
	"fmt"
	"path"
	"sync/atomic"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/store"
)

// RemoteInFlight is how many ranged reads of a checkpoint in a bucket are in
// flight at once.
var RemoteInFlight = 8

var (
	// maxSpan is the most one ranged read asks for, but for reads ahead (aheadSpan).
	maxSpan int64 = 4 << 20
	// maxGap is the widest gap between two runs of a window that one read spans
	// (the gap's bytes are read and dropped) rather than making two requests.
	maxGap int64 = 64 << 10
)

// bucketSource is a checkpoint in a bucket: a .safetensors object, or an index
// .json object and the objects it names beside it, read by ranges.
type bucketSource struct {
	ctx  context.Context
	b    *store.Bucket
	key  string
	held *atomic.Int64 // by the objects' fingerprint samplers
}

// openBucketSource is the checkpoint at url, s3:// or gs://.
func openBucketSource(url string) (ckptSource, error) {
	ctx := context.Background()
	b, key, err := store.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return bucketSource{ctx: ctx, b: b, key: key, held: new(atomic.Int64)}, nil
}

// openBucketCheckpoint reads the checkpoint at key in b by ranges.
func openBucketCheckpoint(ctx context.Context, b *store.Bucket, key string) (*Checkpoint, error) {
	return openFrom(bucketSource{ctx: ctx, b: b, key: key, held: new(atomic.Int64)})
}

func (s bucketSource) name() string { return s.b.URL(s.key) }

func (s bucketSource) open() (*safetensors.File, ckptFile, error) { return s.openKey(s.key) }

func (s bucketSource) readIndex() ([]byte, error) { return s.b.ReadAll(s.ctx, s.key) }

// checkListed leaves the objects' errors to openListed.
func (bucketSource) checkListed([]string) error { return nil }

func (s bucketSource) openListed(f string) (*safetensors.File, ckptFile, error) {
	dir := path.Dir(s.key)
	if dir == "." {
		dir = ""
	} else {
		dir += "/"
	}
	sf, cf, err := s.openKey(dir + f)
	if err != nil {
		return nil, nil, fmt.Errorf("sharding: index %s names %s: %w", s.name(), f, err)
	}
	return sf, cf, nil
}

// openKey reads the header of the object at key, sampling its fingerprint from that
// read on.
func (s bucketSource) openKey(key string) (*safetensors.File, ckptFile, error) {
	o, err := s.b.Object(s.ctx, key)
	if err != nil {
		return nil, nil, err
	}
	of := &objectCkpt{o: o, sample: sample(o, s.held)}
	sf, err := safetensors.OpenReader(o, o.Size(), o.URL())
	if err != nil {
		return nil, nil, err
	}
	return sf, of, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// source is a tensor's row-major bytes, which windows are gathered from.
type source interface {
	// gather copies the window that starts at start and has dims into slab,
	// row-major, and returns the byte range of the tensor it read; with release,
	// pages of a mapped source are released as it goes (see gatherWindow).
	gather(slab []byte, start, dims []int64, eb int64, release bool) (lo, hi int64, err error)
	// release lets the pages of [lo, hi) of a mapped source go.
	release(lo, hi int64)
	Close() error
}

// source opens tensor t for gathering: mapped from a local file, or read by ranges
// from the object that holds it.
func (c *Checkpoint) source(t TensorEntry) (source, error) {
	if r, ok := c.ahead[t.Name]; ok {
		delete(c.ahead, t.Name)
		return r, nil
	}
	return c.file(t.File).source(t)
}

type mappedSource struct{ *buffer.Buffer }

// mappedBuffers is src's mapped memory, for buffer.GuardFaults: none for a bucket's.
func mappedBuffers(src source) []*buffer.Buffer {
	if m, ok := src.(mappedSource); ok {
		return []*buffer.Buffer{m.Buffer}
	}
	return nil
}

func (m mappedSource) gather(slab []byte, start, dims []int64, eb int64, release bool) (int64, int64, error) {
	lo, hi := gatherWindow(slab, m.Buffer, start, dims, eb, release)
	return lo, hi, nil
}

func (m mappedSource) release(lo, hi int64) {
	if m.Mapped() && hi > lo {
		m.ReleasePages(lo, hi)
	}
}

// remoteSource reads a tensor's windows by ranges of the object that holds it.
type remoteSource struct {
	obj   *store.Object
	base  int64     // the tensor's first byte in the object
	shape []int64   // the tensor's dims
	pf    *prefetch // the windows announced (see expect), or nil
}

func (r *remoteSource) release(int64, int64) {}

func (r *remoteSource) Close() error {
	r.pf.close()
	return nil
}

// run is a contiguous piece of a window: n bytes at off in the tensor, at o in the
// slab.
type run struct{ off, o, n int64 }

// windowRuns lists the runs of the window of the row-major tensor of dims g that
// starts at start and has dims, in order (off and o both increase), as gatherWindow
// copies them.
func windowRuns(g, start, dims []int64, eb int64) []run {
	return appendWindowRuns(nil, g, start, dims, eb)
}

// appendWindowRuns is windowRuns appending to rs (whose last run it does not merge
// with the window's first).
func appendWindowRuns(rs []run, g, start, dims []int64, eb int64) []run {
	rank := len(g)
	if rank == 0 {
		return append(rs, run{0, 0, eb})
	}
	k := rank - 1
	for k > 0 && dims[k] == g[k] && start[k] == 0 {
		k--
	}
	inner := eb
	for _, x := range g[k+1:] {
		inner *= x
	}
	n := dims[k] * inner
	if n == 0 {
		return rs
	}
	strides := make([]int64, k+1)
	strides[k] = inner
	for i := k - 1; i >= 0; i-- {
		strides[i] = strides[i+1] * g[i+1]
	}
	for _, d := range dims[:k] {
		if d == 0 {
			return rs
		}
	}
	idx := make([]int64, k)
	first := len(rs)
	var o int64
	for {
		off := start[k] * strides[k]
		for i := range k {
			off += (start[i] + idx[i]) * strides[i]
		}
		if l := len(rs) - 1; l >= first && rs[l].off+rs[l].n == off { // contiguous: one run
			rs[l].n += n
		} else {
			rs = append(rs, run{off, o, n})
		}
		o += n
		if !layout.NextIndex(idx, dims[:k]) {
			return rs
		}
	}
}

// piece is one ranged read: n bytes at off in the tensor, for the runs rs (which
// it covers, in order).
type piece struct {
	off, n int64
	rs     []run
}

// pieces groups runs into reads of at most maxSpan bytes, spanning gaps of up to
// maxGap; a run longer than maxSpan is split.
func pieces(rs []run) []piece { return piecesOf(rs, maxSpan) }

// piecesOf is pieces with reads of at most span bytes.
func piecesOf(rs []run, span int64) []piece {
	var ps []piece
	for _, r := range rs {
		for r.n > 0 {
			if l := len(ps) - 1; l >= 0 {
				p := &ps[l]
				gap := r.off - (p.off + p.n)
				if gap <= maxGap && p.n+gap+r.n <= span {
					p.n += gap + r.n
					p.rs = append(p.rs, r)
					break
				}
			}
			c := r
			c.n = min(r.n, span)
			ps = append(ps, piece{off: c.off, n: c.n, rs: []run{c}})
			r.off, r.o, r.n = r.off+c.n, r.o+c.n, r.n-c.n
		}
	}
	return ps
}

func (r *remoteSource) gather(slab []byte, start, dims []int64, eb int64, _ bool) (lo, hi int64, err error) {
	if lo, hi, ok, err := r.gatherAhead(slab, start, dims, eb); ok {
		return lo, hi, err
	}
	ps := pieces(windowRuns(r.shape, start, dims, eb))
	if len(ps) == 0 {
		return 0, 0, nil
	}
	errs := make(chan error, len(ps))
	sem := make(chan struct{}, max(RemoteInFlight, 1))
	for _, p := range ps {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- r.read(slab, p)
		}()
	}
	for range ps {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	last := ps[len(ps)-1]
	return ps[0].off, last.off + last.n, err
}

// read reads piece p into the slab: straight into place when it is one run, else
// into a buffer whose runs are then copied.
func (r *remoteSource) read(slab []byte, p piece) error {
	if len(p.rs) == 1 {
		_, err := r.obj.ReadAt(slab[p.rs[0].o:p.rs[0].o+p.n], r.base+p.off)
		return err
	}
	buf := make([]byte, p.n)
	if _, err := r.obj.ReadAt(buf, r.base+p.off); err != nil {
		return err
	}
	for _, x := range p.rs {
		copy(slab[x.o:x.o+x.n], buf[x.off-p.off:])
	}
	return nil
}
