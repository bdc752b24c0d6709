package sharding

// This file holds the banded gather and relayout of one shard: the bands are
// relayout's (PlanImageBands), each band's source a strided window of a row-major
// array that gatherWindow assembles.

import (
	"fmt"
	"hash"
	"io"
	"math"
	"slices"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// BandBytes is the size aimed at for the device-image side of one band; the gathered
// source side of a band is that times the source-to-image element size ratio.
var BandBytes int64 = 32 << 20

// releaseBytes is how much of a mapped source a gather reads between releases.
const releaseBytes = 16 << 20

// imagePlan converts a window of a row-major source into a device image, in bands of
// the image's majormost dim (see relayout.PlanImageBands), or in one piece when bands
// is nil.
type imagePlan struct {
	dst       layout.Shape
	srcType   layout.DType
	bands     *relayout.Bands
	whole     *relayout.Plan
	footprint int64
	opts      []relayout.Option
	// win converts bands straight out of a mapped source's windows (see windowPlans),
	// planned at the first group that can use it; winFor is the global dims it is for.
	win    *windowPlans
	winFor []int64
}

// rowMajor is the dense row-major shape of dt and dims.
func rowMajor(dt layout.DType, dims []int64) layout.Shape {
	s := layout.NewShape(dt, dims...)
	s.Layout.MinorToMajor = layout.RowMajor(len(dims))
	return s
}

// newImagePlan plans the conversion of a row-major window of srcType into dst (whose
// dims are the window's), in bands of about target image bytes.
func newImagePlan(dst layout.Shape, srcType layout.DType, target int64, opts []relayout.Option) (*imagePlan, error) {
	ix, err := layout.Compile(dst)
	if err != nil {
		return nil, err
	}
	p := &imagePlan{dst: dst, srcType: srcType, footprint: ix.FootprintBytes(), opts: opts}
	if ix.LogicalElements() == 0 {
		return p, nil
	}
	if b, ok := relayout.PlanImageBands(dst, srcType, target); ok {
		if err := b.Compile(opts...); err != nil {
			return nil, err
		}
		p.bands = b
		return p, nil
	}
	p.whole, err = relayout.NewPlan(dst, rowMajor(srcType, dst.Dims), opts...)
	return p, err
}

// scratch holds the band buffers, reused from shard to shard so that the garbage
// collector does not let the heap grow to twice the bands. ring holds the image
// buffers that writeGroup's lanes hash and write while the next band converts (and
// gatherBanded's read buffers); gband is gatherBanded's second buffer of rows.
type scratch struct {
	slab, img, gband []byte
	ring             [][]byte
}

func grow(b *[]byte, n int64) []byte {
	if int64(cap(*b)) < n {
		*b = make([]byte, n)
	}
	return (*b)[:n]
}

// writeGroup converts the windows of src (row-major, of p.srcType) that start at
// starts and have p.dst's dims into device images, written to ws from offset 0 in
// order and fed to hs, using the buffers of sc. The shards of a group go band by band
// together: they share the source rows of each band (shards that differ only in dims
// inside the band dim), whose pages are released once all have read them, so each
// page is faulted in once. Each converted band is hashed and written in a lane of its
// own file (see lanes) while the next one converts. It returns each image's size.
func (p *imagePlan) writeGroup(ws []io.Writer, hs []hash.Hash, src source, starts [][]int64, sc *scratch) (n int64, err error) {
	eb := int64(p.srcType.StorageBits() / 8)
	if p.bands == nil && p.whole == nil { // no elements: the footprint is all padding
		for i := range ws {
			if err := writeHashed(ws[i], hs[i], make([]byte, p.footprint)); err != nil {
				return 0, err
			}
		}
		return p.footprint, nil
	}
	size := p.footprint
	if p.bands != nil {
		size = p.bands.Band(0).DstLen
	}
	nbuf := -1
	if p.whole != nil {
		nbuf = 1 // a whole image each: no more of them held than before the lanes
	}
	g := newGroupOut(ws, hs, sc, size, nbuf)
	defer func() {
		if cerr := g.ln.close(); err == nil {
			err = cerr
		}
	}()
	if p.whole != nil {
		if err := p.writeWhole(g, src, starts, eb); err != nil {
			return 0, err
		}
		return p.footprint, g.ln.wait()
	}
	if n, err = p.writeBands(g, src, starts, eb); err != nil {
		return n, err
	}
	return n, g.ln.wait()
}

// writeHashed writes b to w and h a piece at a time, hashed and then written while
// it is in the cache: the kernel's copy into the page cache was the largest cost of
// this job with whole bands (see buffer.WriteChunk).
func writeHashed(w io.Writer, h hash.Hash, b []byte) error {
	for len(b) > 0 {
		n := min(len(b), buffer.WriteChunk)
		h.Write(b[:n])
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	buffer.StartWriteback(w) // the disk works while the next bands convert
	return nil
}

// groupOut hands a group's images to lanes that hash and write them. The ring's
// buffers go round: filled by the conversion (next), emptied in a lane (send), back
// on free. A buffer is cleared before its first band of the group (the previous
// shard's bytes where a pad-leave plan writes nothing).
type groupOut struct {
	ws   []io.Writer
	hs   []hash.Hash
	ln   *lanes
	sc   *scratch // its ring
	free chan int
	used []bool
	size int64
}

// newGroupOut makes the lanes of ws and a ring of nbuf buffers of size bytes in
// sc (nbuf -1: one more than the lanes).
func newGroupOut(ws []io.Writer, hs []hash.Hash, sc *scratch, size int64, nbuf int) *groupOut {
	ln := newLanes(min(len(ws), hashLanes()))
	if nbuf < 0 {
		nbuf = ln.len() + 1
	}
	for len(sc.ring) < nbuf {
		sc.ring = append(sc.ring, nil)
	}
	g := &groupOut{ws: ws, hs: hs, ln: ln, sc: sc, free: make(chan int, nbuf), used: make([]bool, nbuf), size: size}
	for r := range nbuf {
		g.free <- r
	}
	return g
}

// next takes a free buffer of the ring: its number and its bytes.
func (g *groupOut) next() (int, []byte) {
	r := <-g.free
	b := grow(&g.sc.ring[r], g.size)
	if !g.used[r] {
		clear(b)
		g.used[r] = true
	}
	return r, b
}

// send has a lane write b, of buffer r, as the next bytes of image i.
func (g *groupOut) send(i, r int, b []byte) error {
	g.ln.do(i, func() error { return writeHashed(g.ws[i], g.hs[i], b) }, func() { g.free <- r })
	return g.ln.failed()
}

// writeWhole converts each shard's window whole (a plan without bands).
func (p *imagePlan) writeWhole(g *groupOut, src source, starts [][]int64, eb int64) error {
	slab := grow(&g.sc.slab, elems(p.dst.Dims)*eb)
	for i, start := range starts {
		if _, _, err := src.gather(slab, start, p.dst.Dims, eb, true); err != nil {
			return err
		}
		r, img := g.next()
		clear(img) // as a band's last rows: what a pad-leave plan does not write
		if err := p.whole.CopyBytes(img, slab); err != nil {
			return fmt.Errorf("cannot convert the shard: %w", err)
		}
		if err := g.send(i, r, img); err != nil {
			return err
		}
	}
	return nil
}

// writeBands converts the shards band by band, each band of every shard of the
// group in turn, and returns the bytes of each image.
func (p *imagePlan) writeBands(g *groupOut, src source, starts [][]int64, eb int64) (n int64, err error) {
	b, d := p.bands, p.bands.Dim()
	slab := grow(&g.sc.slab, b.Band(0).SrcLen)
	from := make([]int64, len(p.dst.Dims))
	alone := len(starts) == 1
	// A source in memory (a mapped file, mostly) is read where it lies: no copy of
	// each band's window into the slab first (16% of a bf16 conversion's CPU).
	var global []byte
	var ahead *remoteSource // a bucket's, read ahead: bands relaid out from the fetched bytes
	if m, ok := src.(mappedSource); ok && p.window(m.Shape.Dims) {
		global = m.Data
	} else if r, ok := src.(*remoteSource); ok && r.pf != nil && p.window(r.shape) {
		ahead = r
	}
	for k := range b.Len() {
		bd := b.Band(k)
		_, bsrc := b.Shapes(k)
		in := slab[:bd.SrcLen]
		lo, hi := int64(math.MaxInt64), int64(0)
		direct := false // the band's source read where it lies: released below
		for i, start := range starts {
			copy(from, start)
			from[d] = start[d] + bd.Row
			r, img := g.next()
			img = img[:bd.DstLen]
			if bd.Rows != b.Band(0).Rows {
				clear(img) // the last band: padding a pad-leave plan does not write
			}
			a, e, ok, err := int64(0), int64(0), false, error(nil)
			if global != nil {
				a, e, ok, err = p.win.from(k, img, global, from)
			} else if ahead != nil {
				a, e, ok, err = ahead.fromAhead(p.win, k, img, from, bsrc.Dims)
			}
			if !ok && err == nil {
				if a, e, err = src.gather(in, from, bsrc.Dims, eb, alone); err == nil {
					err = b.CopyBandBytes(k, img, in)
				}
			}
			if err != nil {
				g.free <- r
				return n, fmt.Errorf("cannot convert band %d of the shard: %w", k, err)
			}
			direct = direct || ok
			lo, hi = min(lo, a), max(hi, e)
			if err := g.send(i, r, img); err != nil {
				return n, err
			}
		}
		if !alone || direct {
			src.release(lo, hi)
		}
		n += bd.DstLen
	}
	return n, nil
}

// window reports whether the bands can be converted straight out of windows of a
// row-major source of global dims g, planning them the first time.
func (p *imagePlan) window(g []int64) bool {
	if p.bands == nil || p.bands.Dim() != 0 {
		return false
	}
	if p.winFor == nil || !slices.Equal(p.winFor, g) {
		p.winFor = slices.Clone(g)
		p.win, _ = newWindowPlans(p.bands, g, false, p.opts...)
	}
	return p.win != nil
}

func elems(dims []int64) int64 {
	n := int64(1)
	for _, x := range dims {
		n *= x
	}
	return n
}

// gatherWindow copies the window of the row-major src that starts at start and has
// dims into slab, row-major; eb is the element size in bytes. Trailing dims that the
// window spans whole are merged into longer runs. With release, the pages of a mapped
// src are released every releaseBytes as the copy goes (the next window reads them
// again from the page cache), so resident memory stays bounded however large src is.
// It returns the byte range of src it read.
func gatherWindow(slab []byte, src *buffer.Buffer, start, dims []int64, eb int64, release bool) (lo, hi int64) {
	return eachRun(src, start, dims, eb, release, func(o, off, run int64) bool {
		copy(slab[o:o+run], src.Data[off:off+run])
		return true
	})
}

// eachRun calls run for each run of the window of src that gatherWindow copies, in
// order: o is the run's offset in the window (row-major), off in src, n its bytes.
// It stops when run returns false; pages are released as gatherWindow says. It returns
// the byte range of src it went over.
func eachRun(src *buffer.Buffer, start, dims []int64, eb int64, release bool, run func(o, off, n int64) bool) (lo, hi int64) {
	g := src.Shape.Dims
	rank := len(g)
	if rank == 0 {
		run(0, 0, eb)
		return 0, eb
	}
	// k: the outermost dim of the run. Dims after k are whole in the window.
	k := rank - 1
	for k > 0 && dims[k] == g[k] && start[k] == 0 {
		k--
	}
	inner := eb // bytes of one index of dim k
	for _, x := range g[k+1:] {
		inner *= x
	}
	n := dims[k] * inner
	strides := make([]int64, k+1) // bytes per index of dims 0 … k in src
	strides[k] = inner
	for i := k - 1; i >= 0; i-- {
		strides[i] = strides[i+1] * g[i+1]
	}
	idx := make([]int64, k) // over dims 0 … k-1 of the window
	mapped := src.Mapped() && release
	var done int64 = -1 // src bytes before this were released
	lo = -1
	var o int64
	for {
		off := start[k] * strides[k]
		for i := range k {
			off += (start[i] + idx[i]) * strides[i]
		}
		if done < 0 {
			done = off
		}
		if lo < 0 {
			lo = off
		}
		more := run(o, off, n)
		o += n
		if mapped && off+n-done >= releaseBytes {
			src.ReleasePages(done, off+n)
			done = off + n
		}
		if !more || !layout.NextIndex(idx, dims[:k]) {
			if mapped && done >= 0 && off+n > done {
				src.ReleasePages(done, off+n)
			}
			return lo, off + n
		}
	}
}
