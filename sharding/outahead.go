package sharding

// This file reads a bucket's shard images ahead of gather: gather reads each group's
// images band by band in an order known before it starts (gatherReads), so the reads
// are issued in that order in the background, RemoteInFlight at once, into a fixed
// set of buffers of RemoteAheadBytes in all, while earlier bands are relaid out,
// hashed and written. Read one at a time as gather asks, each band waited for a
// round trip and the server's whole reply while nothing else went on.

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/store"
)

// fileRange is one read a reader of a conversion's files makes: n bytes at off of
// the file rel.
type fileRange struct {
	rel    string
	off, n int64
}

// gatherReads lists the reads gatherBanded makes, in its order: for each group, each
// band, each shard of the group. It must follow gatherBanded's loops exactly.
func gatherReads(mt manifest.Tensor, groups [][]int, b *relayout.Bands) []fileRange {
	var rs []fileRange
	for _, grp := range groups {
		for k := range b.Len() {
			bd := b.Band(k)
			for _, sk := range grp {
				rs = append(rs, fileRange{mt.Shards[sk].File, bd.SrcOff, bd.SrcLen})
			}
		}
	}
	return rs
}

// gatherAheadHits and gatherAheadMisses count the reads served from the bytes read
// ahead and those read on their own although reads were announced: tests check that
// gatherReads follows gatherBanded (no misses).
var gatherAheadHits, gatherAheadMisses atomic.Int64

// aheadState is a bucket outDir's reads ahead: those of the tensor being gathered,
// and the buffers, kept from one tensor to the next.
type aheadState struct {
	cur  atomic.Pointer[readAhead]
	pool *aheadPool
}

func newAheadState() *aheadState {
	s := &aheadState{pool: &aheadPool{}}
	// No read can be in flight once s is unreachable: every fetcher holds it.
	runtime.AddCleanup(s, (*aheadPool).unmapAll, s.pool)
	return s
}

// aheadPool holds the read-ahead buffers not in use. Mapped afresh for each tensor,
// 64 MiB cost a page fault every 4 KiB: 86k faults gathering a GiB of four tensors,
// against 26k before the reads ahead and 37k with the buffers kept.
type aheadPool struct {
	mu     sync.Mutex
	free   [][]byte // at their full length
	mapped [][]byte // every buffer mapped outside the Go heap (see mapSpan)
}

// get returns a buffer of n bytes: a free one large enough, else a new one (the free
// ones, too small, are given back to the system).
func (p *aheadPool) get(n int64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, b := range p.free {
		if int64(len(b)) >= n {
			p.free = slices.Delete(p.free, i, i+1)
			return b[:n]
		}
	}
	for _, b := range p.free {
		p.unmap(b)
	}
	p.free = p.free[:0]
	b := mapSpan(n)
	if b == nil {
		return make([]byte, n)
	}
	p.mapped = append(p.mapped, b)
	spansMapped.Add(1)
	return b
}

// put gives back buffers that get returned, no read writing to them any more.
func (p *aheadPool) put(bs [][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range bs {
		p.free = append(p.free, b[:cap(b)])
	}
}

// unmap unmaps b if it is one of the mapped buffers (a heap one is left to the GC).
func (p *aheadPool) unmap(b []byte) {
	i := slices.IndexFunc(p.mapped, func(m []byte) bool { return unsafe.SliceData(m) == unsafe.SliceData(b) })
	if i < 0 {
		return
	}
	unmapSpan(p.mapped[i])
	spansMapped.Add(-1)
	p.mapped = slices.Delete(p.mapped, i, i+1)
}

func (p *aheadPool) unmapAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.mapped {
		unmapSpan(b)
		spansMapped.Add(-1)
	}
	p.mapped, p.free = nil, nil
}

// readAhead fetches announced reads of a bucket's objects.
type readAhead struct {
	o     bucketOut
	reads []fileRange
	got   []*aheadRead // got[i] is reads[i]'s fetch
	next  int          // the next read to be asked for (only the reader moves it)

	free     chan []byte              // buffers, nil until first used
	own      [][]byte                 // every buffer taken from the pool
	objs     map[string]*store.Object // the objects opened, by rel
	mu       sync.Mutex               // guards own and objs
	size     int64                    // of each buffer: the largest read
	stop     chan struct{}            // closed by close: the fetcher stops
	done     chan struct{}            // closed when the fetcher has returned
	inFlight sync.WaitGroup           // requests in flight
}

// aheadRead is one read's buffer, filled once done is closed.
type aheadRead struct {
	buf  []byte
	err  error
	done chan struct{}
}

// ahead starts fetching reads, and returns what stops it (nothing is read ahead of a
// directory: its files are local).
func (o bucketOut) ahead(reads []fileRange) (stop func()) {
	if o.ra == nil || len(reads) == 0 {
		return func() {}
	}
	ra := &readAhead{o: o, reads: reads, got: make([]*aheadRead, len(reads)), objs: map[string]*store.Object{},
		stop: make(chan struct{}), done: make(chan struct{})}
	for i, r := range reads {
		ra.size = max(ra.size, r.n)
		ra.got[i] = &aheadRead{done: make(chan struct{})}
	}
	ra.free = make(chan []byte, max(RemoteAheadBytes/max(ra.size, 1), 1))
	for range cap(ra.free) {
		ra.free <- nil
	}
	o.ra.cur.Store(ra)
	go ra.fetch()
	return func() {
		o.ra.cur.CompareAndSwap(ra, nil)
		close(ra.stop)
		back := func() { // to the pool once no read can write to them
			<-ra.done
			ra.inFlight.Wait()
			ra.mu.Lock()
			defer ra.mu.Unlock()
			o.ra.pool.put(ra.own)
			ra.own = nil
		}
		if ra.next == len(ra.reads) {
			back() // every read taken: none in flight, and the next tensor's reads find them
		} else {
			go back() // after a failure, reads may be retrying
		}
	}
}

// fetch issues the reads in order, each into a free buffer, in requests of up to
// aheadSpan bytes, RemoteInFlight at once.
func (ra *readAhead) fetch() {
	defer close(ra.done)
	sem := make(chan struct{}, max(RemoteInFlight, 1))
	fail := func(from int, err error) {
		for _, g := range ra.got[from:] {
			g.err = err
			close(g.done)
		}
	}
	for i, r := range ra.reads {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.stop:
			fail(i, errStopped)
			return
		}
		if buf == nil {
			buf = ra.o.ra.pool.get(ra.size)
			ra.mu.Lock()
			ra.own = append(ra.own, buf)
			ra.mu.Unlock()
		}
		g := ra.got[i]
		g.buf = buf[:r.n]
		obj, err := ra.object(r.rel)
		if err != nil {
			ra.free <- buf
			fail(i, err)
			return
		}
		reads := new(fanOut)
		for at := int64(0); at < r.n; at += aheadSpan {
			part := g.buf[at:min(at+aheadSpan, r.n)]
			reads.goRead(sem, &ra.inFlight, func() error {
				_, err := readAt(obj, part, r.off+at)
				return err
			})
		}
		go func() {
			g.err = reads.wait()
			close(g.done)
		}()
	}
}

// object opens rel once for the fetcher and the reader both.
func (ra *readAhead) object(rel string) (*store.Object, error) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	if o := ra.objs[rel]; o != nil {
		return o, nil
	}
	o, err := ra.o.b.Object(ra.o.ctx, ra.o.prefix+rel)
	if err == nil {
		ra.objs[rel] = o
	}
	return o, err
}

// take returns the bytes of reading n at off of rel, when that is the next read
// announced, and what gives their buffer back (see readBand); ok is false otherwise.
func (ra *readAhead) take(rel string, n, off int64) (p []byte, release func(), ok bool, err error) {
	if ra.next == len(ra.reads) {
		gatherAheadMisses.Add(1)
		return nil, nil, false, nil
	}
	if r := ra.reads[ra.next]; r.rel != rel || r.off != off || r.n != n {
		gatherAheadMisses.Add(1)
		return nil, nil, false, nil
	}
	gatherAheadHits.Add(1)
	g := ra.got[ra.next]
	ra.next++
	<-g.done
	if g.err != nil {
		return nil, nil, true, g.err
	}
	var users atomic.Int32
	users.Store(2)
	return g.buf, func() {
		if users.Add(-1) == 0 {
			ra.free <- g.buf[:cap(g.buf)]
		}
	}, true, nil
}

// readBand reads len(buf) bytes at off of f into buf, or returns them from the
// reads made ahead of f, without a copy. The band has two users, its hash and its
// relayout, which may end in either order on different goroutines: each calls
// release when done with p, and a buffer read ahead goes back after both.
func readBand(f outFile, buf []byte, off int64) (p []byte, release func(), err error) {
	if af, ok := f.(aheadFile); ok {
		if ra := af.ra.cur.Load(); ra != nil {
			if p, release, ok, err := ra.take(af.rel, int64(len(buf)), off); ok {
				return p, release, err
			}
		}
	}
	_, err = f.ReadAt(buf, off)
	return buf, func() {}, err
}

// aheadFile is a bucket's object that gather reads, its bands served from the reads
// ahead (see readBand).
type aheadFile struct {
	objectFile
	rel string
	ra  *aheadState
}
