package sharding

// This file reads a bucket's tensor ahead of the conversion: the windows that
// writeGroup will gather are known before it starts, so their bytes are fetched in
// the background, several ranged reads in flight, while earlier bands are relaid
// out, hashed and written. The shards of a group read disjoint columns of the same
// rows, so each band's windows are fetched together as the union of their runs:
// one pass over the rows, in requests of up to maxSpan bytes, instead of one
// gap-spanning pass for each shard.

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// RemoteBandBytes is BandBytes for a tensor read from a bucket: smaller bands let
// the reads of the next ones overlap the conversion of this one with little memory.
var RemoteBandBytes int64 = 8 << 20

// RemoteAheadBytes bounds the bytes of a bucket's tensor fetched and not yet
// gathered (more when one band's reads need more).
var RemoteAheadBytes int64 = 64 << 20

// aheadHits and aheadMisses count the windows gathered from announced bytes and
// those read on their own although others were announced: tests check that
// announce follows writeGroup (no misses).
var aheadHits, aheadMisses atomic.Int64

// window is a box of a row-major tensor, in elements.
type window struct{ start, dims []int64 }

// steps lists, in the order writeGroup gathers them, the windows of starts: one
// step a band of the group (its shards read the same source rows), or one shard of
// a plan without bands. It must follow writeGroup's loops exactly.
func (p *imagePlan) steps(starts [][]int64) [][]window {
	if p.bands == nil && p.whole == nil {
		return nil
	}
	if p.whole != nil {
		var ss [][]window
		for _, start := range starts {
			ss = append(ss, []window{{slices.Clone(start), slices.Clone(p.dst.Dims)}})
		}
		return ss
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

// announce tells a bucket's source which windows the groups of t will gather, in
// order: the groups a rerun skips (already in the bucket) are left out.
func (j *Job) announce(src source, t *tensorJob) {
	r, ok := src.(*remoteSource)
	if !ok {
		return
	}
	var ss [][]window
	for _, group := range t.groups() {
		files := make([]string, len(group))
		starts := make([][]int64, len(group))
		for i, k := range group {
			files[i] = shardFile(t.dir, &t.pl.Shards[k])
			starts[i] = t.pl.Shards[k].Start
		}
		if sums, err := j.sink.present(files); sums != nil || err != nil {
			continue
		}
		ss = append(ss, t.plan.steps(starts)...)
	}
	r.expect(ss, int64(t.t.DType.StorageBits()/8))
}

// prefetch holds a remoteSource's announced windows and the bytes fetched for them.
type prefetch struct {
	steps []*fetchStep
	s, w  int // the next window to gather: steps[s].wins[w]

	free chan []byte   // buffers of maxSpan bytes, one per piece fetched and not yet gathered
	stop chan struct{} // closed by Close: the fetcher stops
	once sync.Once
}

// fetchStep is one step's windows and the pieces that hold their bytes.
type fetchStep struct {
	wins []window
	ps   []piece  // the union of the windows' runs, in reads (run.o unused)
	bufs [][]byte // bufs[i] holds ps[i]
	done chan struct{}
	err  error // set before done is closed
}

// expect starts fetching the windows of steps, which gather must then be asked for
// in this order; a window asked for out of order is read on its own.
func (r *remoteSource) expect(steps [][]window, eb int64) {
	if len(steps) == 0 {
		return
	}
	pf := &prefetch{stop: make(chan struct{})}
	most := 0
	for _, wins := range steps {
		var rs []run
		for _, w := range wins {
			rs = append(rs, windowRuns(r.shape, w.start, w.dims, eb)...)
		}
		st := &fetchStep{wins: wins, ps: pieces(mergeRuns(rs)), done: make(chan struct{})}
		st.bufs = make([][]byte, len(st.ps))
		most = max(most, len(st.ps))
		pf.steps = append(pf.steps, st)
	}
	// Enough buffers for the largest step, so the fetcher can always finish the step
	// the conversion waits for.
	pf.free = make(chan []byte, max(int(RemoteAheadBytes/maxSpan), most, 1))
	for range cap(pf.free) {
		pf.free <- nil // allocated when first used
	}
	r.pf = pf
	go r.fetch(pf)
}

// mergeRuns sorts runs by offset and merges those that overlap or touch.
func mergeRuns(rs []run) []run {
	slices.SortFunc(rs, func(a, b run) int { return cmp.Compare(a.off, b.off) })
	var out []run
	for _, x := range rs {
		if l := len(out) - 1; l >= 0 && x.off <= out[l].off+out[l].n {
			out[l].n = max(out[l].n, x.off+x.n-out[l].off)
			continue
		}
		out = append(out, run{off: x.off, n: x.n})
	}
	return out
}

// fetch reads the pieces of every step in order, RemoteInFlight at once, each into
// a buffer from pf.free (so at most cap(pf.free) pieces are held), and closes a
// step's done when all its pieces are in.
func (r *remoteSource) fetch(pf *prefetch) {
	sem := make(chan struct{}, max(RemoteInFlight, 1))
	for _, st := range pf.steps {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i, p := range st.ps {
			var buf []byte
			select {
			case buf = <-pf.free:
			case <-pf.stop:
				wg.Wait()
				st.err = errStopped
				close(st.done)
				return
			}
			if buf == nil {
				buf = getSpan()
			}
			st.bufs[i] = buf[:p.n]
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				if _, err := r.obj.ReadAt(st.bufs[i], r.base+p.off); err != nil {
					mu.Lock()
					if st.err == nil {
						st.err = err
					}
					mu.Unlock()
				}
			}()
		}
		// The next step's reads start as soon as this one's are issued; done waits
		// for this one's only.
		go func() {
			wg.Wait()
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
	rs := windowRuns(r.shape, start, dims, eb)
	for _, x := range rs {
		copyRun(slab[x.o:x.o+x.n], x.off, st)
	}
	if pf.w++; pf.w == len(st.wins) { // the step is gathered: its buffers go back
		for i, b := range st.bufs {
			pf.free <- b[:cap(b)]
			st.bufs[i] = nil
		}
		pf.s, pf.w = pf.s+1, 0
	}
	if len(rs) == 0 {
		return 0, 0, true, nil
	}
	last := rs[len(rs)-1]
	return rs[0].off, last.off + last.n, true, nil
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

// close stops the fetcher and gives the buffers back to spans (those still in
// flight, after a failure, are left to the garbage collector).
func (pf *prefetch) close() {
	if pf == nil {
		return
	}
	pf.once.Do(func() { close(pf.stop) })
	for {
		select {
		case b := <-pf.free:
			if b != nil {
				spans.Put(&b)
			}
		default:
			return
		}
	}
}

// spans recycles read buffers from tensor to tensor: a new set for each would let
// the heap grow to twice the bytes fetched ahead before a collection.
var spans sync.Pool

// getSpan returns a buffer of maxSpan bytes.
func getSpan() []byte {
	if b, ok := spans.Get().(*[]byte); ok && int64(cap(*b)) >= maxSpan {
		return (*b)[:maxSpan]
	}
	return make([]byte, maxSpan)
}
