package relayout

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// Bands is a large conversion split along logical dim Dim, the destination's majormost,
// into bands of rows (values of that dim) that are contiguous byte ranges of the
// destination: n full bands of rows rows, then one band of last rows (0: none). Each
// band is read from a contiguous byte range of the source too or, from a row-major
// source whose majormost dim is another (a device layout that transposes the host
// array), gathered from it. Converting band after band keeps the memory a conversion
// needs to about two bands, whatever the array's size, and lets a caller release the
// pages of a mapped source as they are consumed.
//
// [PlanBands] (or [PlanImageBands]) finds the bands; [Bands.Compile] builds their two
// plans; then [Bands.CopyBand] or [Bands.CopyBandBytes] converts one band and
// [Bands.Run] all of them. Band k's bytes equal
// bytes [DstOff, DstOff+DstLen) of one [Plan.Copy] of the whole array with the same
// options.
type Bands struct {
	dim              int
	rows, n, last    int64
	srcBand, dstBand int64 // bytes of a full band
	srcLast, dstLast int64 // bytes of the last band
	gather           bool  // the source band is a strided slab of a row-major source
	dst, src         layout.Shape
	full, tail       *Plan
}

// Band is one band of a [Bands]: rows [Row, Row+Rows) of the banded dim, written to
// destination bytes [DstOff, DstOff+DstLen). A direct band reads source bytes [SrcOff,
// SrcOff+SrcLen); a gathered band reads SrcLen bytes in runs spread over the whole
// source (SrcOff is then 0), one run per index of the dims before the banded one.
type Band struct {
	Row, Rows      int64
	SrcOff, SrcLen int64
	DstOff, DstLen int64
	Gather         bool
}

// PlanBands splits the conversion of src into dst into bands of about target bytes.
// ok is false when the conversion is to be done in one piece: banding needs equal dims,
// the destination's majormost dim majormost in the source too (or a row-major source,
// whose bands are then gathered), no tail padding, and bands a whole number of bytes;
// the band height is a multiple of that dim's first tile extent on both sides; every
// band is checked to be a contiguous byte range with the layouts' own index math (on
// the source side too unless it is gathered). A gathered conversion under 8 bands of
// target bytes is not banded (one piece is faster), and its bands aim at twice target.
func PlanBands(dst, src layout.Shape, target int64) (b *Bands, ok bool) {
	sIx, err1 := layout.Compile(src)
	dIx, err2 := layout.Compile(dst)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	return PlanBandsCompiled(dIx, sIx, target)
}

// PlanBandsCompiled is [PlanBands] on shapes the caller has compiled already.
func PlanBandsCompiled(dIx, sIx *layout.Indexer, target int64) (b *Bands, ok bool) {
	dst, src := dIx.Shape(), sIx.Shape()
	dims, rank := src.Dims, src.Rank()
	if rank == 0 || !slices.Equal(dims, dst.Dims) || len(dst.Layout.MinorToMajor) != rank || src.LogicalElements() == 0 {
		return nil, false
	}
	d := dst.Layout.MinorToMajor[rank-1]
	if dims[d] < 2 {
		return nil, false
	}
	ed, ok := majorExtent(dIx, d)
	if !ok {
		return nil, false
	}
	es, ok := majorExtent(sIx, d)
	gather := !ok && d != 0 && sIx.IsRowMajorDense() && src.Layout.PrefixBytes == 0
	if gather {
		es = 1
	} else if !ok {
		return nil, false
	}
	unit := es / gcd(es, ed) * ed
	sUnit, ok1 := bandIndexer(src, d, unit)
	dUnit, ok2 := bandIndexer(dst, d, unit)
	if !ok1 || !ok2 {
		return nil, false
	}
	per := max(sUnit.FootprintBytes(), dUnit.FootprintBytes())
	if gather {
		// Each band reads across the whole source: fewer, larger bands, and none for an
		// image under 8 bands (one piece is faster then).
		if dIx.FootprintBytes() < 8*target {
			return nil, false
		}
		target *= 2
	}
	rows := unit * max(1, target/max(per, 1))
	if rows >= dims[d] {
		return nil, false
	}
	return newBands(dst, src, dIx, sIx, d, rows, gather)
}

// PlanImageBands is [PlanBands] for a caller that assembles each band's source itself,
// row-major in srcType (a window of a larger array, say), and converts it with
// [Bands.CopyBandBytes]: bands of dst's majormost dim of about target bytes of dst,
// each a contiguous byte range of dst; Band(k).SrcLen is the size of band k's row-major
// source. ok is false when dst is to be converted in one piece.
func PlanImageBands(dst layout.Shape, srcType layout.DType, target int64) (b *Bands, ok bool) {
	dims, rank := dst.Dims, dst.Rank()
	if rank == 0 || len(dst.Layout.MinorToMajor) != rank || dst.LogicalElements() == 0 {
		return nil, false
	}
	d := dst.Layout.MinorToMajor[rank-1]
	if dims[d] < 2 {
		return nil, false
	}
	src := layout.NewShape(srcType, dims...)
	sIx, err1 := layout.Compile(src)
	dIx, err2 := layout.Compile(dst)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	unit, ok := majorExtent(dIx, d)
	if !ok {
		return nil, false
	}
	uIx, ok := bandIndexer(dst, d, unit)
	if !ok {
		return nil, false
	}
	rows := unit * max(1, target/max(uIx.FootprintBytes(), 1))
	if rows >= dims[d] {
		return nil, false
	}
	return newBands(dst, src, dIx, sIx, d, rows, true)
}

// newBands sizes the bands of rows rows along d and checks that each is a contiguous
// byte range of the destination, and of the source unless it is gathered.
func newBands(dst, src layout.Shape, dIx, sIx *layout.Indexer, d int, rows int64, gather bool) (*Bands, bool) {
	dims := dIx.Dims()
	b := &Bands{dim: d, rows: rows, n: dims[d] / rows, last: dims[d] % rows, gather: gather, dst: dst, src: src}
	sBand, ok1 := bandIndexer(src, d, rows)
	dBand, ok2 := bandIndexer(dst, d, rows)
	if !ok1 || !ok2 {
		return nil, false
	}
	b.srcBand, b.dstBand = sBand.FootprintBytes(), dBand.FootprintBytes()
	if !gather && !contiguousBands(sIx, sBand, b) || !contiguousBands(dIx, dBand, b) {
		return nil, false
	}
	if b.last > 0 {
		sLast, ok1 := bandIndexer(src, d, b.last)
		dLast, ok2 := bandIndexer(dst, d, b.last)
		if !ok1 || !ok2 {
			return nil, false
		}
		b.srcLast, b.dstLast = sLast.FootprintBytes(), dLast.FootprintBytes()
	}
	if b.n*b.srcBand+b.srcLast != sIx.FootprintBytes() || b.n*b.dstBand+b.dstLast != dIx.FootprintBytes() {
		return nil, false
	}
	return b, true
}

// majorExtent is the extent along logical dim d of the first tile of ix's layout (1 when
// the tile does not reach it), and whether ix can be banded along d at all: d must be
// majormost, and the layout free of tail padding, prefix bytes, splits and sparse parts.
func majorExtent(ix *layout.Indexer, d int) (int64, bool) {
	l, rank := ix.Shape().Layout, ix.Rank()
	if len(l.MinorToMajor) != rank || l.MinorToMajor[rank-1] != d || l.TailPadding > 1 ||
		l.PrefixBytes != 0 || len(l.Splits) != 0 || l.Physical != nil {
		return 0, false
	}
	return ix.FirstTileExtent(d)
}

// bandShape returns s with dim d set to rows.
func bandShape(s layout.Shape, d int, rows int64) layout.Shape {
	s.Dims = slices.Clone(s.Dims)
	s.Dims[d] = rows
	s.Dynamic = nil
	return s
}

// bandIndexer compiles s with dim d set to rows; ok is false unless its footprint is a
// whole number of bytes.
func bandIndexer(s layout.Shape, d int, rows int64) (*layout.Indexer, bool) {
	ix, err := layout.Compile(bandShape(s, d, rows))
	if err != nil || ix.FootprintElements()*int64(ix.ElementBits())%8 != 0 {
		return nil, false
	}
	return ix, true
}

// contiguousBands checks, on one side, that every band of b starts at a multiple of
// the full band's footprint and that its first, middle and last elements sit where the
// band's own layout puts them, relative to that start.
func contiguousBands(full, band *layout.Indexer, b *Bands) bool {
	bandElems := band.FootprintElements()
	dims := full.Dims()
	rank := len(dims)
	idx, local := make([]int64, rank), make([]int64, rank)
	probe := func(k int64, rowInBand int64, minor bool) bool {
		for i := range rank {
			idx[i] = 0
			if minor {
				idx[i] = dims[i] - 1
			}
			local[i] = idx[i]
		}
		idx[b.dim], local[b.dim] = k*b.rows+rowInBand, rowInBand
		if idx[b.dim] >= dims[b.dim] {
			return true
		}
		if local[b.dim] >= band.Dims()[b.dim] {
			return true
		}
		return full.Offset(idx) == k*bandElems+band.Offset(local)
	}
	for k := range int64(b.Len()) {
		rows := b.rows
		if k == b.n {
			rows = b.last
		}
		if !probe(k, 0, false) || !probe(k, rows-1, true) || !probe(k, rows/2, true) || !probe(k, rows-1, false) {
			return false
		}
	}
	return true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Dim is the banded logical dim: the destination's majormost.
func (b *Bands) Dim() int { return b.dim }

// Len is the number of bands.
func (b *Bands) Len() int {
	if b.last > 0 {
		return int(b.n) + 1
	}
	return int(b.n)
}

// Gather reports whether the bands are gathered from a row-major source.
func (b *Bands) Gather() bool { return b.gather }

// Band describes band k, 0 ≤ k < Len(). Band 0 is the largest on both sides.
func (b *Bands) Band(k int) Band {
	k64 := int64(k)
	r := Band{Row: k64 * b.rows, Rows: b.rows, SrcLen: b.srcBand, DstLen: b.dstBand,
		SrcOff: k64 * b.srcBand, DstOff: k64 * b.dstBand, Gather: b.gather}
	if k64 == b.n {
		r.Rows, r.SrcLen, r.DstLen = b.last, b.srcLast, b.dstLast
	}
	if b.gather {
		r.SrcOff = 0
	}
	return r
}

// Shapes are the destination and source shapes of band k: the whole shapes with the
// banded dim set to the band's rows.
func (b *Bands) Shapes(k int) (dst, src layout.Shape) {
	rows := b.Band(k).Rows
	return bandShape(b.dst, b.dim, rows), bandShape(b.src, b.dim, rows)
}

// Compile builds the plans of a full band and of the last one, with opts as for
// [NewPlan]; its error is NewPlan's.
func (b *Bands) Compile(opts ...Option) error {
	var err error
	if b.full, err = NewPlan(bandShape(b.dst, b.dim, b.rows), bandShape(b.src, b.dim, b.rows), opts...); err != nil {
		return err
	}
	if b.last > 0 {
		if b.tail, err = NewPlan(bandShape(b.dst, b.dim, b.last), bandShape(b.src, b.dim, b.last), opts...); err != nil {
			return err
		}
	}
	return nil
}

// errNotCompiled is returned by CopyBand, CopyBandBytes and Run before Compile.
var errNotCompiled = errors.New("relayout: bands used before Compile")

// CopyBand converts band k of src (a buffer of the source shape) into dst, which must
// hold exactly the band's DstLen bytes. A gathered band first collects its source bytes
// into scratch (at least Band(0).SrcLen bytes; nil for direct bands).
func (b *Bands) CopyBand(k int, dst []byte, src *buffer.Buffer, scratch []byte) error {
	if b.full == nil {
		return errNotCompiled
	}
	if k < 0 || k >= b.Len() {
		return fmt.Errorf("relayout: band %d of %d", k, b.Len())
	}
	if !slices.Equal(src.Dims(), b.src.Dims) || src.DType() != b.src.DType || int64(len(src.Data)) != b.n*b.srcBand+b.srcLast {
		return fmt.Errorf("relayout: bands of %v given a source of %v", b.src, src.Shape)
	}
	bd := b.Band(k)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // as in Plan.CopyBytes
	var in []byte
	if b.gather {
		if int64(len(scratch)) < bd.SrcLen {
			return fmt.Errorf("relayout: band %d gathers %d bytes into %d of scratch", k, bd.SrcLen, len(scratch))
		}
		in = scratch[:bd.SrcLen]
		b.gatherBand(in, src, bd.Row)
	} else {
		in = src.Data[bd.SrcOff : bd.SrcOff+bd.SrcLen]
	}
	return b.CopyBandBytes(k, dst, in)
}

// CopyBandBytes converts band k from src, the band's own source bytes (Band(k).SrcLen of
// them, in the layout of the source's band shape; row-major for gathered bands), into
// dst (Band(k).DstLen bytes).
func (b *Bands) CopyBandBytes(k int, dst, src []byte) error {
	if b.full == nil {
		return errNotCompiled
	}
	if k < 0 || k >= b.Len() {
		return fmt.Errorf("relayout: band %d of %d", k, b.Len())
	}
	if int64(k) == b.n {
		return b.tail.CopyBytes(dst, src)
	}
	return b.full.CopyBytes(dst, src)
}

// Run converts band after band, in order, into one reusable buffer and hands each to
// write with its description; an error from write is returned as it is. The pages of a
// mapped src are released once consumed (see [buffer.Buffer.ReleasePages]), so resident
// memory stays about two bands (three when they are gathered).
func (b *Bands) Run(src *buffer.Buffer, write func(Band, []byte) error) error {
	if b.full == nil {
		return errNotCompiled
	}
	buf := make([]byte, b.dstBand)
	var scratch []byte
	if b.gather {
		scratch = make([]byte, b.srcBand)
	}
	for k := range b.Len() {
		bd := b.Band(k)
		out := buf[:bd.DstLen]
		if int64(k) == b.n {
			// Its padding may sit where full bands had data: with WithPadLeave the
			// plan does not write it, so it must not keep the previous band's bytes.
			clear(out)
		}
		if err := b.CopyBand(k, out, src, scratch); err != nil {
			return fmt.Errorf("relayout: cannot convert band %d: %w", k, err)
		}
		if err := write(bd, out); err != nil {
			return err
		}
		if !b.gather {
			src.ReleasePages(bd.SrcOff, bd.SrcOff+bd.SrcLen)
		}
	}
	return nil
}

// gatherBand copies the band of a row-major src that starts at row c0 of the banded dim
// into slab, row-major: one run for each index of the dims before it. Each band touches
// every page of a mapped src (the runs may be shorter than a page, and the kernel maps
// the pages around each one it faults in), so they are released every releaseBytes as
// the copy goes; the next band reads them again from the page cache.
func (b *Bands) gatherBand(slab []byte, src *buffer.Buffer, c0 int64) {
	dims := src.Dims()
	outer := layout.Elements(dims[:b.dim]) // the runs
	run := int64(len(slab)) / outer
	stride := int64(len(src.Data)) / outer // bytes of one index of the dims before d
	skip := stride / dims[b.dim] * c0
	var done int64 // src bytes released so far
	for o := range outer {
		copy(slab[o*run:(o+1)*run], src.Data[o*stride+skip:])
		if end := (o + 1) * stride; src.Mapped() && (end-done >= releaseBytes || o == outer-1) {
			src.ReleasePages(done, end)
			done = end
		}
	}
}

// releaseBytes is how much of a mapped source a gathered band reads between releases.
const releaseBytes = 16 << 20
