package sharding

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// gatherBandBytes is the size aimed at for the global rows gather assembles at once:
// the images of the shards that hold the same rows are read band by band, each band
// relaid out to row-major and placed at its columns, and the rows written.
var gatherBandBytes int64 = 32 << 20

// gatherBanded writes tensor t's global array (row-major) to w, in order, reading its
// shard images from dir band by band: memory holds about gatherBandBytes of global
// rows, however large the tensor. ok is false, with nothing done, when the images
// cannot be read in bands of dim 0 (their majormost dim must be 0) or their rows do not
// follow one another; the caller then gathers the tensor whole. A shard's checksum is
// known after its last band: on a mismatch the rows before it are written already (a
// file is then removed, as on any error; a stream gets the error after them).
func gatherBanded(w io.Writer, dir outDir, mt ManifestTensor, dst layout.Shape, pl *Placement, sc *scratch) (ok bool, err error) {
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
	b, banded := relayout.PlanBands(rowMajor(dst.DType, dst.Dims), dst, max(gatherBandBytes/max(per, 1), 1))
	if !banded || b.Dim() != 0 || b.Gather() {
		return false, nil
	}
	if err := b.Compile(); err != nil {
		return false, nil
	}
	for _, grp := range groups {
		if len(grp) != int(per) {
			return false, nil // not one group per row range of equal size: gather whole
		}
	}
	defer dir.ahead(gatherReads(mt, groups, b))() // a bucket's images: read ahead
	// The shards' bytes are hashed in lanes (see lanes) while the next band is read
	// and placed, and the assembled rows written in a lane of their own: read buffers
	// go round a ring of lanes+1, the rows between two buffers.
	hl, wl := newLanes(min(int(per), hashLanes())), newLanes(1)
	defer func() {
		hl.close()
		if werr := wl.close(); err == nil {
			err = werr
		}
	}()
	nbuf := hl.len() + 1
	for len(sc.ring) < nbuf {
		sc.ring = append(sc.ring, nil)
	}
	free := make(chan int, nbuf)
	for r := range nbuf {
		free <- r
	}
	gfree := make(chan *[]byte, 2)
	gfree <- &sc.slab
	gfree <- &sc.gband
	rm := grow(&sc.img2, b.Band(0).DstLen)
	cw := buffer.ChunkedWriter{W: w}
	for _, grp := range groups {
		fs := make([]outFile, len(grp))
		hs := make([]hash.Hash, len(grp))
		defer func() {
			for _, f := range fs {
				if f != nil {
					f.Close()
				}
			}
		}()
		for i, k := range grp {
			ms := mt.Shards[k]
			f, err := openShard(dir, ms)
			if err != nil {
				return true, err
			}
			fs[i], hs[i] = f, sha256.New()
		}
		for k := range b.Len() {
			bd := b.Band(k)
			gb := <-gfree
			band := grow(gb, b.Band(0).Rows*rowBytes)[:bd.Rows*rowBytes]
			bdims := append([]int64{bd.Rows}, g[1:]...)
			wdims := append([]int64{bd.Rows}, dst.Dims[1:]...)
			for i, sk := range grp {
				r := <-free
				in, release, err := readBand(fs[i], grow(&sc.ring[r], b.Band(0).SrcLen)[:bd.SrcLen], bd.SrcOff)
				if err != nil {
					return true, fmt.Errorf("%s: %w", mt.Shards[sk].File, err)
				}
				h := hs[i]
				hl.do(i, func() error { h.Write(in); return nil }, func() { release(); free <- r })
				err = b.CopyBandBytes(k, rm[:bd.DstLen], in)
				release()
				if err != nil {
					return true, err
				}
				start := append([]int64{0}, pl.Shards[sk].Start[1:]...)
				scatterWindow(band, bdims, rm[:bd.DstLen], start, wdims, eb)
			}
			wl.do(0, func() error { _, err := cw.Write(band); return err }, func() { gfree <- gb })
			if err := wl.failed(); err != nil {
				return true, err
			}
		}
		if err := hl.wait(); err != nil {
			return true, err
		}
		for i, sk := range grp {
			ms := mt.Shards[sk]
			if hex.EncodeToString(hs[i].Sum(nil)) != ms.SHA256 {
				return true, fmt.Errorf("%s does not match its sha256 in the manifest: the replicas of shard %v would disagree", ms.File, ms.Index)
			}
			fs[i].Close()
			fs[i] = nil
		}
	}
	return true, wl.wait()
}

// openShard opens a shard's image file and checks its size against the manifest.
func openShard(dir outDir, ms ManifestShard) (outFile, error) {
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
