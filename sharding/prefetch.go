package sharding

// This file reads a bucket's tensor ahead of the conversion: the windows that
// writeGroup will gather are known before it starts, so their bytes are fetched in
// the background, several ranged reads in flight, while earlier bands are relaid
// out, hashed and written. The shards of a group read disjoint columns of the same
// rows, so each band's windows are fetched together as the union of their runs:
// one pass over the rows, in requests of up to aheadSpan bytes, instead of one
// gap-spanning pass for each shard.

import (
	"cmp"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// RemoteBandBytes is BandBytes for a tensor read from a bucket: smaller bands let
// the reads of the next ones overlap the conversion of this one with little memory.
var RemoteBandBytes int64 = 8 << 20

// RemoteAheadBytes bounds the bytes read from a bucket and not yet gathered, for all
// the tensors of a conversion together (more when one band's reads need more). With
// the bands it is most of a conversion's memory, however large the checkpoint; the
// buffers are mapped outside the Go heap where they can be (see mapSpan).
var RemoteAheadBytes int64 = 64 << 20

// aheadSpan is the most one read ahead asks for, and the size of its buffer. An S3
// server's work is much per request: versitygw spent 0.71 s of CPU serving 1 GiB in
// 4 MiB ranges, 0.57 s in 8 MiB and 0.50 s in 16 MiB (0.43 s in 32 MiB), the client
// 0.41, 0.35, 0.34 s. A step's reads are at most its bytes: 8 to 16 MiB with
// RemoteBandBytes.
var aheadSpan int64 = 16 << 20

// aheadSlack is mapped past aheadSpan in each read buffer and never read into: a
// shard's window relaid out straight from a buffer (fromAhead) spans its rows at the
// global row stride, so its footprint ends up to a row past the last one fetched,
// in padding that the relayout never reads (see windowPlans). Mapped and untouched,
// it costs no memory.
var aheadSlack int64 = 1 << 20

// aheadHits and aheadMisses count the windows gathered from announced bytes and
// those read on their own although others were announced: tests check that
// announce follows writeGroup (no misses).
var aheadHits, aheadMisses atomic.Int64

// window is a box of a row-major tensor, in elements.
type window struct{ start, dims []int64 }

// steps lists, in the order writeGroup gathers them, the windows of starts: one
// step a band of the group, or the whole group for a plan without bands (its shards
// read the same source rows, fetched once: as a step a shard, a group of four
// shards of a small tensor read four times its bytes, the gaps between one shard's
// rows spanned). It must follow writeGroup's loops exactly.
func (p *imagePlan) steps(starts [][]int64) [][]window {
	if p.bands == nil && p.whole == nil {
		return nil
	}
	if p.whole != nil {
		var step []window
		for _, start := range starts {
			step = append(step, window{slices.Clone(start), slices.Clone(p.dst.Dims)})
		}
		return [][]window{step}
	}
	b, d := p.bands, p.bands.Dim()
	var ss [][]window
	for k := range b.Len() {
		bd := b.Band(k)
		_, bsrc := b.Shapes(k)
		var step []window
		for _, start := range starts {
			from := slices.Clone(start)
			from[d] = start[d] + bd.Row
			step = append(step, window{from, slices.Clone(bsrc.Dims)})
		}
		ss = append(ss, step)
	}
	return ss
}

// announce starts fetching ahead the job's tensors that are in a bucket, in the
// order write converts them (the groups a rerun skips left out), and returns what
// stops the fetchers, for write to call when it returns. write's source then hands
// out each tensor's fetching source. The fetchers share RemoteAheadBytes of buffers
// and run one after another: a tensor's reads start once the previous tensor's are
// all issued, so the first band of each is in before it is needed, and the buffers
// a tensor waits for are never held by one behind it.
func (j *shardJob) announce() (stop func()) {
	var pfs []*prefetch
	most := 0
	for i := range j.tensors {
		t := &j.tensors[i]
		r := j.ckpt.file(t.t.File).aheadSource(t.t)
		if r == nil {
			continue // read as it is needed
		}
		var ss [][]window
		for _, group := range t.groups() {
			files := make([]string, len(group))
			starts := make([][]int64, len(group))
			for i, k := range group {
				files[i] = manifest.ShardFile(t.dir, t.pl.Shards[k].Index)
				starts[i] = t.pl.Shards[k].Start
			}
			if sums, err := j.sink.present(files); sums != nil || err != nil {
				continue
			}
			ss = append(ss, t.plan.steps(starts)...)
		}
		pf := r.expect(ss, int64(t.t.DType.StorageBits()/8))
		if n := len(pfs); n > 0 {
			pf.after = pfs[n-1].issued
		}
		for _, st := range pf.steps {
			most = max(most, len(st.ps))
		}
		pfs = append(pfs, pf)
		if j.ckpt.ahead == nil {
			j.ckpt.ahead = map[string]*remoteSource{}
		}
		j.ckpt.ahead[t.t.Name] = r
	}
	// Enough buffers for the largest step, so the fetcher can always finish the step
	// the conversion waits for.
	sp := &spans{free: make(chan []byte, max(int(RemoteAheadBytes/aheadSpan), most, 1)),
		inFlight: make(chan struct{}, max(RemoteInFlight, 1))}
	for range cap(sp.free) {
		sp.free <- nil // allocated when first used
	}
	for _, pf := range pfs {
		pf.sp = sp
		go pf.r.fetch(pf)
	}
	return func() {
		for _, pf := range pfs {
			pf.close()
		}
		clear(j.ckpt.ahead)
		go sp.release(pfs)
	}
}

// spans are the read buffers that a conversion's fetchers share.
type spans struct {
	free     chan []byte    // aheadSpan+aheadSlack bytes each, or nil for one not yet allocated
	inFlight chan struct{}  // a token a read: RemoteInFlight for all the fetchers
	reads    sync.WaitGroup // reads in flight into them
	mu       sync.Mutex
	mapped   [][]byte // those outside the Go heap (see mapSpan)
}

// get takes a buffer, waiting for one to be free, or returns nil once stop is closed.
func (sp *spans) get(stop chan struct{}) []byte {
	select {
	case b := <-sp.free:
		if b != nil {
			return b
		}
		if b = mapSpan(aheadSpan + aheadSlack); b == nil {
			return make([]byte, aheadSpan+aheadSlack)
		}
		sp.mu.Lock()
		sp.mapped = append(sp.mapped, b)
		sp.mu.Unlock()
		spansMapped.Add(1)
		return b
	case <-stop:
		return nil
	}
}

// release unmaps the buffers once nothing can write to them: every fetcher of pfs
// has returned (no read starts after) and every read it started has ended (after a
// failure some may still be retrying).
func (sp *spans) release(pfs []*prefetch) {
	for _, pf := range pfs {
		<-pf.issued
	}
	sp.reads.Wait()
	sp.unmap()
}

func (sp *spans) unmap() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, b := range sp.mapped {
		unmapSpan(b)
		spansMapped.Add(-1)
	}
	sp.mapped = nil
}

// spansMapped counts the buffers mapped and not yet unmapped, for tests.
var spansMapped atomic.Int64

// waitUnmapped waits up to d for every mapped buffer to be unmapped, collecting
// garbage meanwhile (gather's are unmapped when its outDir is collected); it reports
// whether they were.
func waitUnmapped(d time.Duration) bool {
	for end := time.Now().Add(d); spansMapped.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
		runtime.GC()
	}
	return true
}

// prefetch holds a remoteSource's announced windows and the bytes fetched for them.
type prefetch struct {
	r     *remoteSource
	steps []*fetchStep
	s, w  int   // the next window to gather: steps[s].wins[w]
	runs  []run // gatherAhead's, reused

	sp     *spans        // the buffers, one per piece fetched and not yet gathered
	after  chan struct{} // closed when the previous tensor's reads are all issued; nil for the first
	issued chan struct{} // closed when this one's are (or it stopped)
	stop   chan struct{} // closed by close: the fetcher stops
	once   sync.Once
}

// fetchStep is one step's windows and the pieces that hold their bytes.
type fetchStep struct {
	wins []window
	ps   []piece  // the union of the windows' runs, in reads (run.o unused)
	bufs [][]byte // bufs[i] holds ps[i]
	done chan struct{}
	err  error // set before done is closed
}

// expect sets r to gather the windows of steps, which it must then be asked for in
// this order (a window asked for out of order is read on its own), from the pieces
// the returned prefetch fetches once given its buffers (see announce).
func (r *remoteSource) expect(steps [][]window, eb int64) *prefetch {
	pf := &prefetch{r: r, issued: make(chan struct{}), stop: make(chan struct{})}
	var rs []run // reused: the garbage of a run per row let the heap grow with the checkpoint
	var ends []int
	for _, wins := range steps {
		rs, ends = rs[:0], ends[:0]
		for _, w := range wins {
			rs = appendWindowRuns(rs, r.shape, w.start, w.dims, eb)
			ends = append(ends, len(rs))
		}
		st := &fetchStep{wins: wins, ps: piecesOf(mergeLists(rs, ends), aheadSpan), done: make(chan struct{})}
		st.bufs = make([][]byte, len(st.ps))
		pf.steps = append(pf.steps, st)
	}
	r.pf = pf
	return pf
}

// mergeRuns sorts runs by offset and merges those that overlap or touch.
func mergeRuns(rs []run) []run {
	slices.SortFunc(rs, func(a, b run) int { return cmp.Compare(a.off, b.off) })
	var out []run
	for _, x := range rs {
		out = joinRun(out, x)
	}
	return out
}

// joinRun appends x to out, sorted by offset, merged with out's last run when they
// overlap or touch.
func joinRun(out []run, x run) []run {
	if l := len(out) - 1; l >= 0 && x.off <= out[l].off+out[l].n {
		out[l].n = max(out[l].n, x.off+x.n-out[l].off)
		return out
	}
	return append(out, run{off: x.off, n: x.n})
}

// mergeLists is mergeRuns for runs that are sorted within each of the lists that end
// at ends (a step's windows, each in order): a merge of the few lists rather than a
// sort. Planning a GiB's reads, before the first is issued, took 32-227 ms with the
// sort (load 5-8), 8-14 ms with the merge.
func mergeLists(rs []run, ends []int) []run {
	if len(ends) > 8 {
		return mergeRuns(rs)
	}
	var heads [8]int
	for i := 1; i < len(ends); i++ {
		heads[i] = ends[i-1]
	}
	out := make([]run, 0, len(rs))
	for {
		best := -1
		for i, e := range ends {
			if heads[i] < e && (best < 0 || rs[heads[i]].off < rs[heads[best]].off) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = joinRun(out, rs[heads[best]])
		heads[best]++
	}
}

// fetch waits for the previous tensor's reads to be issued, then reads the pieces of
// every step in order, RemoteInFlight at once, each into a buffer from pf.sp (so at
// most cap(pf.sp.free) pieces are held), and closes a step's done when all its
// pieces are in.
func (r *remoteSource) fetch(pf *prefetch) {
	defer close(pf.issued)
	stopped := func(st *fetchStep) {
		st.err = errStopped
		close(st.done)
	}
	if pf.after != nil {
		select {
		case <-pf.after:
		case <-pf.stop:
			for _, st := range pf.steps {
				stopped(st)
			}
			return
		}
	}
	sem := pf.sp.inFlight // shared: the next tensor's reads start while this one's end
	for s, st := range pf.steps {
		reads := new(fanOut)
		for i, p := range st.ps {
			buf := pf.sp.get(pf.stop)
			if buf == nil {
				reads.wait()
				for _, st := range pf.steps[s:] {
					stopped(st)
				}
				return
			}
			st.bufs[i] = buf[:p.n]
			reads.goRead(sem, &pf.sp.reads, func() error {
				_, err := r.obj.ReadAt(st.bufs[i], r.base+p.off)
				return err
			})
		}
		// The next step's reads start as soon as this one's are issued; done waits
		// for this one's only.
		go func() {
			st.err = reads.wait()
			close(st.done)
		}()
	}
}

var errStopped = errors.New("sharding: prefetch stopped")

// gatherAhead gathers the window from the fetched bytes when it is the next one
// announced; ok is false otherwise.
func (r *remoteSource) gatherAhead(slab []byte, start, dims []int64, eb int64) (lo, hi int64, ok bool, err error) {
	pf := r.pf
	if pf == nil {
		return 0, 0, false, nil
	}
	if pf.s == len(pf.steps) {
		aheadMisses.Add(1)
		return 0, 0, false, nil
	}
	st := pf.steps[pf.s]
	if w := st.wins[pf.w]; !slices.Equal(w.start, start) || !slices.Equal(w.dims, dims) {
		aheadMisses.Add(1)
		return 0, 0, false, nil
	}
	aheadHits.Add(1)
	<-st.done
	if st.err != nil {
		return 0, 0, true, st.err
	}
	rs := appendWindowRuns(pf.runs[:0], r.shape, start, dims, eb)
	pf.runs = rs
	for _, x := range rs {
		copyRun(slab[x.o:x.o+x.n], x.off, st)
	}
	pf.advance(st)
	if len(rs) == 0 {
		return 0, 0, true, nil
	}
	last := rs[len(rs)-1]
	return rs[0].off, last.off + last.n, true, nil
}

// aheadDirect counts the windows relaid out straight from the fetched bytes
// (fromAhead), for tests; the others announced were copied into a slab first.
var aheadDirect atomic.Int64

// fromAhead relays out band k of a shard's image into img straight from the fetched
// bytes with w (as windowPlans.from does from a mapped file), when the window at from
// with dims is the next one announced and its bytes lie in one fetched piece: no copy
// of the band's rows into a slab first (11% of a conversion's CPU from a bucket).
// ok is false otherwise, with nothing taken: the caller gathers the window, which
// gatherAhead then copies (a window across two pieces: a step of more than aheadSpan
// bytes). The bytes returned are the window's in the tensor.
func (r *remoteSource) fromAhead(w *windowPlans, k int, img []byte, from, dims []int64) (lo, hi int64, ok bool, err error) {
	pf := r.pf
	if pf == nil || pf.s == len(pf.steps) || slices.Contains(dims, 0) {
		return 0, 0, false, nil
	}
	st := pf.steps[pf.s]
	if win := st.wins[pf.w]; !slices.Equal(win.start, from) || !slices.Equal(win.dims, dims) {
		return 0, 0, false, nil
	}
	<-st.done
	if st.err != nil {
		aheadHits.Add(1)
		return 0, 0, true, st.err
	}
	p := w.plan(k)
	lo = w.offset(from)
	last := make([]int64, len(from))
	for i := range from {
		last[i] = from[i] + dims[i] - 1
	}
	hi = w.offset(last) + w.eb // the window's last byte: row-major, its largest offset
	end := lo + p.SrcBytes()   // the footprint's, in the padding after the last row
	// The last piece that starts at or before lo.
	i, _ := slices.BinarySearchFunc(st.ps, lo, func(p piece, off int64) int { return cmp.Compare(p.off, off) })
	if i == len(st.ps) || st.ps[i].off > lo {
		i--
	}
	if i < 0 || hi > st.ps[i].off+st.ps[i].n || end-st.ps[i].off > int64(cap(st.bufs[i])) {
		return 0, 0, false, nil
	}
	aheadHits.Add(1)
	aheadDirect.Add(1)
	buf := st.bufs[i][:cap(st.bufs[i])]
	err = p.CopyBytes(img, buf[lo-st.ps[i].off:end-st.ps[i].off])
	pf.advance(st)
	return lo, hi, true, err
}

// advance moves past the window of st just gathered; once all of st's are, its
// buffers go back.
func (pf *prefetch) advance(st *fetchStep) {
	if pf.w++; pf.w == len(st.wins) {
		for i, b := range st.bufs {
			pf.sp.free <- b[:cap(b)]
			st.bufs[i] = nil
		}
		pf.s, pf.w = pf.s+1, 0
	}
}

// copyRun copies the tensor's bytes from off into dst from the pieces of st, which
// cover them.
func copyRun(dst []byte, off int64, st *fetchStep) {
	// The last piece that starts at or before off.
	i, _ := slices.BinarySearchFunc(st.ps, off, func(p piece, off int64) int { return cmp.Compare(p.off, off) })
	if i == len(st.ps) || st.ps[i].off > off {
		i--
	}
	for len(dst) > 0 {
		p := st.ps[i]
		n := copy(dst, st.bufs[i][off-p.off:])
		dst, off = dst[n:], off+int64(n)
		i++
	}
}

// close stops the fetcher.
func (pf *prefetch) close() {
	if pf != nil {
		pf.once.Do(func() { close(pf.stop) })
	}
}
