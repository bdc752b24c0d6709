package sharding

import (
	"cmp"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// gatherBandBytes is the size aimed at for the global rows gather assembles at once:
// the images of the shards that hold the same rows are read band by band, each band
// relaid out to row-major into its columns of the rows, and the rows written. 8 MiB
// rather than 32: the rows are still in the cache when the write lane copies them to
// the file, and memory stays small (bench/design-notes.md).
var gatherBandBytes int64 = 8 << 20

// gatherBucketBandBytes is gatherBandBytes for images in a bucket, where each shard's
// band is one request and a request costs the server CPU of its own: larger bands
// mean fewer requests, for somewhat more memory (bench/design-notes.md).
var gatherBucketBandBytes int64 = 32 << 20

// mapShards lets gather map local shard images (tests turn it off to cover reading).
var mapShards = true

// gatherBanded writes tensor t's global array (row-major) to w, in order, reading its
// shard images from dir band by band: memory holds about gatherBandBytes of global
// rows, however large the tensor. ok is false, with nothing done, when the images
// cannot be read in bands of dim 0 (their majormost dim must be 0) or their rows do not
// follow one another, or cannot be relaid out into their columns of the rows (see
// windowPlans); the caller then gathers the tensor whole. A shard's checksum is
// known after its last band: on a mismatch the rows before it are written already (a
// file is then removed, as on any error; a stream gets the error after them).
func gatherBanded(w io.Writer, dir outDir, mt manifest.Tensor, dst layout.Shape, pl *placement.Placement, sc *scratch) (ok bool, err error) {
	g := mt.Shape
	if len(g) < 2 || elems(g) == 0 {
		return false, nil
	}
	eb := int64(dst.DType.StorageBits() / 8)
	rowBytes := elems(g[1:]) * eb // bytes of one global row
	// The shards that hold the same rows go together: they tile those rows (Place
	// checked that the shards tile the array, all of the same dims).
	var groups [][]int
	at := map[int64]int{} // a first row → its group
	for k := range mt.Shards {
		r := pl.Shards[k].Start[0]
		if i, ok := at[r]; ok {
			groups[i] = append(groups[i], k)
			continue
		}
		at[r] = len(groups)
		groups = append(groups, []int{k})
	}
	// In order of rows, each group's rows right after the last one's.
	slices.SortFunc(groups, func(a, b []int) int { return cmp.Compare(pl.Shards[a[0]].Start[0], pl.Shards[b[0]].Start[0]) })
	for i, grp := range groups {
		if pl.Shards[grp[0]].Start[0] != int64(i)*dst.Dims[0] {
			return false, nil
		}
	}
	if int64(len(groups))*dst.Dims[0] != g[0] {
		return false, nil
	}
	per := int64(len(groups[0]))
	b, banded := relayout.PlanBands(rowMajor(dst.DType, dst.Dims), dst, max(dir.bandBytes()/max(per, 1), 1))
	if !banded || b.Dim() != 0 || b.Gather() {
		return false, nil
	}
	for _, grp := range groups {
		if len(grp) != int(per) {
			return false, nil // not one group per row range of equal size: gather whole
		}
	}
	win, werr := newWindowPlans(b, g, true)
	if werr != nil {
		return false, nil
	}
	gb := &groupBands{w: buffer.ChunkedWriter{W: w}, dir: dir, mt: mt, dst: dst, pl: pl, b: b, win: win, rowBytes: rowBytes, sc: sc}
	defer dir.ahead(gatherReads(mt, groups, b))() // a bucket's images: read ahead
	// The shards' bytes are hashed in lanes (see lanes) while the next band is read
	// and placed, and the assembled rows written in a lane of their own: read buffers
	// go round a ring of lanes+1, the rows between two buffers.
	gb.hl, gb.wl = newLanes(min(int(per), hashLanes())), newLanes(1)
	defer func() {
		gb.hl.close()
		if werr := gb.wl.close(); err == nil {
			err = werr
		}
	}()
	nbuf := gb.hl.len() + 1
	for len(sc.ring) < nbuf {
		sc.ring = append(sc.ring, nil)
	}
	gb.free = make(chan int, nbuf)
	for r := range nbuf {
		gb.free <- r
	}
	gb.rows = make(chan *[]byte, 2)
	gb.rows <- &sc.slab
	gb.rows <- &sc.gband
	for _, grp := range groups {
		if err := gb.group(grp); err != nil {
			return true, err
		}
	}
	return true, gb.wl.wait()
}

// groupBands is the state of one tensor's banded gather.
type groupBands struct {
	w        buffer.ChunkedWriter
	dir      outDir
	mt       manifest.Tensor
	dst      layout.Shape // a shard's image
	pl       *placement.Placement
	b        *relayout.Bands // bands of a shard's image, into row-major
	win      *windowPlans    // the bands, into a shard's columns of the rows
	rowBytes int64
	sc       *scratch
	hl, wl   *lanes
	free     chan int     // ring buffers free to read into
	rows     chan *[]byte // buffers of global rows free to fill
}

// shardIn is one shard's image as a group reads it: mapped, or read band by band.
type shardIn struct {
	ms  manifest.Shard
	f   outFile
	img *buffer.Buffer // the mapped image, or nil
	h   hash.Hash
}

// guard runs f, which reads the shard's mapped image, so that its file shrinking
// meanwhile is an error naming it, not SIGBUS (see buffer.GuardFaults).
func (s *shardIn) guard(f func() error) error {
	if s.img == nil {
		return f()
	}
	return buffer.GuardFaults(s.ms.File, f, s.img)
}

func (s *shardIn) close() {
	if s.img != nil {
		s.img.Close()
		s.img = nil
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// openShardIn opens a shard's image, mapped when it is a local file that can be.
func (gb *groupBands) openShardIn(ms manifest.Shard) (*shardIn, error) {
	f, err := openShard(gb.dir, ms)
	if err != nil {
		return nil, err
	}
	s := &shardIn{ms: ms, f: f, h: ms.NewHash()}
	if sf, ok := f.(sizedFile); ok && mapShards {
		img, err := buffer.MapFile(sf.File, gb.dst)
		switch {
		case err == nil:
			s.img = img
		case !errors.Is(err, buffer.ErrNotMapped):
			f.Close()
			return nil, fmt.Errorf("%s: %w", ms.File, err)
		}
	}
	return s, nil
}

// group writes the global rows of the shards grp, band by band: each shard's band,
// from its mapping (or read into a ring buffer), is relaid out into its columns of the
// rows, then hashed in its lane, which releases its mapped pages; the rows go to the
// write lane. Nothing is copied between the page cache and the rows but the write.
func (gb *groupBands) group(grp []int) (err error) {
	b, mt := gb.b, gb.mt
	ss := make([]*shardIn, len(grp))
	defer func() {
		// The lanes may still read the mappings after an error.
		if werr := gb.hl.wait(); err == nil {
			err = werr
		}
		for _, s := range ss {
			if s != nil {
				s.close()
			}
		}
	}()
	for i, k := range grp {
		if ss[i], err = gb.openShardIn(mt.Shards[k]); err != nil {
			return err
		}
	}
	for k := range b.Len() {
		bd := b.Band(k)
		rb := <-gb.rows
		// One row more than the band: a window plan's footprint runs past the band's
		// end by the window's offset in a row (padding it leaves alone).
		all := grow(rb, (b.Band(0).Rows+1)*gb.rowBytes)
		band := all[:bd.Rows*gb.rowBytes]
		for i, sk := range grp {
			s := ss[i]
			// A ring buffer also when mapped: the bands not yet hashed, whose pages
			// are not yet released, are no more than the ring.
			r := <-gb.free
			in, release := []byte(nil), func() {}
			if s.img != nil {
				in = s.img.Data[bd.SrcOff : bd.SrcOff+bd.SrcLen]
			} else {
				var err error
				// A bucket's band comes from its reads ahead; release, once by the
				// relayout and once by the hash, gives that buffer back.
				in, release, err = readBand(s.f, grow(&gb.sc.ring[r], b.Band(0).SrcLen)[:bd.SrcLen], bd.SrcOff)
				if err != nil {
					gb.free <- r
					return fmt.Errorf("%s: %w", s.ms.File, err)
				}
			}
			start := gb.pl.Shards[sk].Start
			err := s.guard(func() error { return gb.win.copy(k, all, in, start) })
			release()
			if err != nil {
				gb.free <- r
				return err
			}
			gb.hl.do(i, func() error {
				err := s.guard(func() error { s.h.Write(in); return nil })
				if s.img != nil {
					// Read once: its pages go, so resident memory stays a few bands.
					s.img.ReleasePages(bd.SrcOff, bd.SrcOff+bd.SrcLen)
				}
				return err
			}, func() { release(); gb.free <- r })
		}
		gb.wl.do(0, func() error { _, err := gb.w.Write(band); return err }, func() { gb.rows <- rb })
		if err := gb.wl.failed(); err != nil {
			return err
		}
		if err := gb.hl.failed(); err != nil {
			return err
		}
	}
	if err := gb.hl.wait(); err != nil {
		return err
	}
	for _, s := range ss {
		if s.ms.SumDiffers(s.h) != "" {
			return s.ms.Mismatch()
		}
	}
	return nil
}

// windowPlans relay out the bands of a shard's image between the image and the
// shard's window of the row-major global array, with no row-major copy of the window
// between: the window side is the band's row-major [rows, dims 1…] tiled by the global
// dims 1… (T(g1, …)), so that its rows lie at the global rows' stride. Into the window
// (gather) the plans leave that tiling's padding (the other shards' columns) alone; out
// of it (a conversion from a mapped checkpoint) padding is never read. That saves a copy
// of every byte: the row-major band, scattered into the rows or gathered from them.
type windowPlans struct {
	full, tail *relayout.Plan
	n          int     // the index of the tail band
	g          []int64 // the global dims
	eb         int64   // bytes of an element on the window side
}

// newWindowPlans plans the bands b, whose dim is 0, into windows of the global dims g
// (toWindow: b's destination is the window's dtype, row-major) or out of them (b's
// source is), or returns an error when they cannot be planned (the caller then goes
// through a row-major band).
func newWindowPlans(b *relayout.Bands, g []int64, toWindow bool, opts ...relayout.Option) (*windowPlans, error) {
	dst, src := b.Shapes(0)
	win := src
	if toWindow {
		win = dst
	}
	if b.Dim() != 0 || win.DType.StorageBits()%8 != 0 || len(win.Dims) != len(g) || len(g) < 2 {
		return nil, fmt.Errorf("no window plans for %s ← %s", dst, src)
	}
	plan := func(k int) (*relayout.Plan, error) {
		dst, src := b.Shapes(k)
		if toWindow {
			dst.Layout.Tiles = []layout.Tile{slices.Clone(g[1:])}
			return relayout.NewPlan(dst, src, append(slices.Clone(opts), relayout.WithPadLeave())...)
		}
		src.Layout.Tiles = []layout.Tile{slices.Clone(g[1:])}
		return relayout.NewPlan(dst, src, opts...)
	}
	w := &windowPlans{n: b.Len() - 1, g: g, eb: int64(win.DType.StorageBits() / 8)}
	var err error
	if w.full, err = plan(0); err != nil {
		return nil, err
	}
	if last := b.Len() - 1; b.Band(last).Rows != b.Band(0).Rows {
		if w.tail, err = plan(last); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// plan is band k's plan.
func (w *windowPlans) plan(k int) *relayout.Plan {
	if k == w.n && w.tail != nil {
		return w.tail
	}
	return w.full
}

// offset is the byte offset in the row-major global array of the element at idx.
func (w *windowPlans) offset(idx []int64) int64 {
	var off int64
	stride := w.eb
	for i := len(w.g) - 1; i >= 0; i-- {
		off += idx[i] * stride
		stride *= w.g[i]
	}
	return off
}

// copy relays out band k of a shard's image, in, into rows (the band's global rows,
// with one spare row after them), at the shard's columns: start is its first index.
func (w *windowPlans) copy(k int, rows, in []byte, start []int64) error {
	p := w.plan(k)
	off := w.offset(append([]int64{0}, start[1:]...))
	return p.CopyBytes(rows[off:off+p.DstBytes()], in)
}

// from relays out band k of a shard's image into img from global, the whole row-major
// array, where the band's window starts at index from. ok is false, with nothing done,
// when the window's footprint runs past global's end (its last rows, in a shard that
// is not the last of its rows: the caller gathers that band), else it returns the
// bytes of global the band spans.
func (w *windowPlans) from(k int, img, global []byte, from []int64) (lo, hi int64, ok bool, err error) {
	p := w.plan(k)
	off := w.offset(from)
	end := off + p.SrcBytes()
	if end > int64(len(global)) {
		return 0, 0, false, nil
	}
	return off, end, true, p.CopyBytes(img, global[off:end])
}

// openShard opens a shard's image file and checks its size against the manifest.
func openShard(dir outDir, ms manifest.Shard) (outFile, error) {
	f, err := dir.open(ms.File)
	if err != nil {
		return nil, err
	}
	if f.Size() != ms.Bytes {
		f.Close()
		return nil, fmt.Errorf("%s has %d bytes, the manifest says %d", ms.File, f.Size(), ms.Bytes)
	}
	return f, nil
}
