package sharding

// This file holds the banded gather and relayout of one shard: it mirrors the banding
// of cmd/tpulayout/convert.go (planBands, gatherBand) for a source that is always a
// strided window of a row-major array. It is meant to be replaced by the shared
// banding library once that exists.

import (
	"fmt"
	"hash"
	"io"
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
// the image's majormost dim d (or in one piece when n is 0): n full bands of rows
// rows, then one of last rows (0: none). Every band is a contiguous byte range of the
// image, checked with the layout's index math.
type imagePlan struct {
	dst               layout.Shape
	srcType           layout.DType
	d                 int
	rows, n, last     int64
	dstBand, dstLast  int64
	full, tail, whole *relayout.Plan
	footprint         int64
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
	p := &imagePlan{dst: dst, srcType: srcType, footprint: ix.FootprintBytes()}
	if ix.LogicalElements() == 0 {
		return p, nil
	}
	if planImageBands(p, ix, target) {
		if p.full, err = relayout.NewPlan(band(dst, p.d, p.rows), rowMajor(srcType, bandDims(dst.Dims, p.d, p.rows)), opts...); err != nil {
			return nil, err
		}
		if p.last > 0 {
			if p.tail, err = relayout.NewPlan(band(dst, p.d, p.last), rowMajor(srcType, bandDims(dst.Dims, p.d, p.last)), opts...); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	p.n = 0
	p.whole, err = relayout.NewPlan(dst, rowMajor(srcType, dst.Dims), opts...)
	return p, err
}

// planImageBands fills in p's bands and reports whether the image can be banded: its
// majormost dim d must have room for two bands, the layout no tail padding, prefix,
// splits or sparse parts, and each band (a multiple of d's first tile extent) a whole
// number of bytes at its place in the image.
func planImageBands(p *imagePlan, ix *layout.Indexer, target int64) bool {
	dst := p.dst
	rank := dst.Rank()
	l := dst.Layout
	if rank == 0 || len(l.MinorToMajor) != rank || l.TailPadding > 1 || l.PrefixBytes != 0 || len(l.Splits) != 0 || l.Physical != nil {
		return false
	}
	d := l.MinorToMajor[rank-1]
	if dst.Dims[d] < 2 {
		return false
	}
	unit := int64(1)
	if len(l.Tiles) > 0 && len(l.Tiles[0]) >= rank {
		unit = l.Tiles[0][len(l.Tiles[0])-rank]
		if unit < 1 {
			return false // combined or malformed
		}
	}
	uIx, ok := bandIndexer(dst, d, unit)
	if !ok {
		return false
	}
	rows := unit * max(1, target/max(uIx.FootprintBytes(), 1))
	if rows >= dst.Dims[d] {
		return false
	}
	p.d, p.rows, p.n, p.last = d, rows, dst.Dims[d]/rows, dst.Dims[d]%rows
	bIx, ok := bandIndexer(dst, d, rows)
	if !ok {
		return false
	}
	p.dstBand = bIx.FootprintBytes()
	if p.last > 0 {
		lIx, ok := bandIndexer(dst, d, p.last)
		if !ok {
			return false
		}
		p.dstLast = lIx.FootprintBytes()
	}
	return p.n*p.dstBand+p.dstLast == ix.FootprintBytes() && contiguousBands(ix, bIx, p)
}

// footprintOf is the footprint of s in bytes: p's band sizes for its bands, else p's
// whole image.
func (p *imagePlan) footprintOf(s layout.Shape) int64 {
	if p.full == nil || s.Dims[p.d] == p.dst.Dims[p.d] {
		return p.footprint
	}
	if s.Dims[p.d] == p.rows {
		return p.dstBand
	}
	return p.dstLast
}

func bandDims(dims []int64, d int, rows int64) []int64 {
	b := slices.Clone(dims)
	b[d] = rows
	return b
}

// band returns s with dim d set to rows.
func band(s layout.Shape, d int, rows int64) layout.Shape {
	s.Dims = bandDims(s.Dims, d, rows)
	s.Dynamic = nil
	return s
}

// bandIndexer compiles s with dim d set to rows; ok is false unless its footprint is
// a whole number of bytes.
func bandIndexer(s layout.Shape, d int, rows int64) (*layout.Indexer, bool) {
	ix, err := layout.Compile(band(s, d, rows))
	if err != nil || ix.FootprintElements()*int64(ix.ElementBits())%8 != 0 {
		return nil, false
	}
	return ix, true
}

// contiguousBands checks that each band of p starts at a multiple of the full band's
// footprint and that its first, middle and last elements sit where the band's own
// layout puts them, relative to that start.
func contiguousBands(full, band *layout.Indexer, p *imagePlan) bool {
	bandElems := band.FootprintElements()
	dims := full.Dims()
	rank := len(dims)
	idx, local := make([]int64, rank), make([]int64, rank)
	probe := func(k, row int64, minor bool) bool {
		for i := range rank {
			idx[i] = 0
			if minor {
				idx[i] = dims[i] - 1
			}
			local[i] = idx[i]
		}
		idx[p.d], local[p.d] = k*p.rows+row, row
		if idx[p.d] >= dims[p.d] || local[p.d] >= band.Dims()[p.d] {
			return true
		}
		return full.Offset(idx) == k*bandElems+band.Offset(local)
	}
	nb := p.n
	if p.last > 0 {
		nb++
	}
	for k := range nb {
		rows := p.rows
		if k == p.n {
			rows = p.last
		}
		if !probe(k, 0, false) || !probe(k, rows-1, true) || !probe(k, rows/2, true) || !probe(k, rows-1, false) {
			return false
		}
	}
	return true
}

// scratch holds the band buffers, reused from shard to shard so that the garbage
// collector does not let the heap grow to twice the bands.
type scratch struct{ slab, img []byte }

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
// page is faulted in once. It returns each image's size.
func (p *imagePlan) writeGroup(ws []io.Writer, hs []hash.Hash, src *buffer.Buffer, starts [][]int64, sc *scratch) (int64, error) {
	out := func(i int, b []byte) error {
		hs[i].Write(b)
		_, err := ws[i].Write(b)
		return err
	}
	eb := int64(p.srcType.StorageBits() / 8)
	if p.full == nil && p.whole == nil { // no elements: the footprint is all padding
		for i := range ws {
			if err := out(i, make([]byte, p.footprint)); err != nil {
				return 0, err
			}
		}
		return p.footprint, nil
	}
	if p.whole != nil {
		slab := grow(&sc.slab, elems(p.dst.Dims)*eb)
		img := grow(&sc.img, p.footprint)
		for i, start := range starts {
			gatherWindow(slab, src, start, p.dst.Dims, eb, true)
			clear(img)
			if err := p.whole.CopyBytes(img, slab); err != nil {
				return 0, fmt.Errorf("cannot convert the shard: %w", err)
			}
			if err := out(i, img); err != nil {
				return 0, err
			}
		}
		return p.footprint, nil
	}
	slab := grow(&sc.slab, elems(bandDims(p.dst.Dims, p.d, p.rows))*eb)
	img := grow(&sc.img, p.dstBand)
	clear(img) // the previous shard's bytes where a --pad leave plan writes nothing
	from := make([]int64, len(p.dst.Dims))
	alone := len(starts) == 1
	var n int64
	for k := int64(0); k <= p.n; k++ {
		plan, rows, dn := p.full, p.rows, p.dstBand
		if k == p.n {
			if p.last == 0 {
				break
			}
			plan, rows, dn = p.tail, p.last, p.dstLast
			clear(img[:dn]) // padding a --pad leave plan does not write
		}
		dims := bandDims(p.dst.Dims, p.d, rows)
		in := slab[:elems(dims)*eb]
		lo, hi := int64(len(src.Data)), int64(0)
		for i, start := range starts {
			copy(from, start)
			from[p.d] = start[p.d] + k*p.rows
			a, b := gatherWindow(in, src, from, dims, eb, alone)
			lo, hi = min(lo, a), max(hi, b)
			if err := plan.CopyBytes(img[:dn], in); err != nil {
				return n, fmt.Errorf("cannot convert band %d of the shard: %w", k, err)
			}
			if err := out(i, img[:dn]); err != nil {
				return n, err
			}
		}
		if !alone && src.Mapped() && hi > lo {
			src.ReleasePages(lo, hi)
		}
		n += dn
	}
	return n, nil
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
	g := src.Shape.Dims
	rank := len(g)
	if rank == 0 {
		copy(slab, src.Data[:eb])
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
	run := dims[k] * inner
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
		copy(slab[o:o+run], src.Data[off:off+run])
		o += run
		if mapped && off+run-done >= releaseBytes {
			src.ReleasePages(done, off+run)
			done = off + run
		}
		if !layout.NextIndex(idx, dims[:k]) {
			if mapped && done >= 0 && off+run > done {
				src.ReleasePages(done, off+run)
			}
			return lo, off + run
		}
	}
}
