package relayout

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// nibbleTiles relays out a 2-D 4-bit array between one element a byte, row-major
// ({1,0}, as int4 checkpoints are often stored), and TPU tiles of 32-bit words of
// eight rows' nibbles ({1,0:T(R,128)(8,1)E(4)}, R a multiple of 8), in one pass each
// way where the sub-byte executor took three (unpack, byte transpose, pack): each
// group of 8 rows is joined into the words of the group's tile rows (simd
// Nibbles.JoinWordsRows: the joins two rows a byte into scratch and the quad packing
// from there took two passes), and reading tiles back splits each word's nibbles
// straight into the group's 8 rows (simd Nibbles.SplitWordsRows, zero-extended as the
// sub-byte executor's unpacking writes them). Dims must be whole tiles (no padding);
// other shapes take the sub-byte executor.
type nibbleTiles struct {
	p          *Plan
	tiled      bool                                // the destination is the tiled side
	rows, cols int64                               // the array's dims
	tileRows   int64                               // R
	part       func(dst, src []byte, lo, hi int64) // groups, made once: a method value allocates
}

// nibblePair returns the tiled side of a 2-D int4 copy whose other side is row-major,
// a byte an element (the tiled side is dst when the copy packs, src when it unpacks),
// and the copy's dims.
// Both are taken as the 2-D arrays they are in memory (see flatRows): the real int4
// layouts XLA writes have more dims, s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}
// among them.
func nibblePair(p *Plan, dst, src layout.Shape) (tiled layout.Shape, rows, cols int64, ok bool) {
	if p.opts.generic || p.dt != p.st || (p.dt != layout.S4 && p.dt != layout.U4) {
		return layout.Shape{}, 0, 0, false
	}
	tiled, bytes := dst, src
	if p.dbits == 8 {
		tiled, bytes = src, dst
	}
	tiled, bytes = flatRows(tiled), flatRows(bytes)
	if len(tiled.Dims) != 2 || len(bytes.Dims) != 2 {
		return layout.Shape{}, 0, 0, false
	}
	rows, cols = bytes.Dims[0], bytes.Dims[1]
	return tiled, rows, cols, bytes.String() == fmt.Sprintf("%s[%d,%d]{1,0}", p.dt, rows, cols)
}

// flatRows returns s as the 2-D array it is in memory, or s itself when it is not one:
// when its last dim is the minor-most, its other dims of more than one element are
// ordered major to minor as their indexes are, and, where its first tile has two
// entries, the dim that tile's rows run along (the second-minor) is a multiple of
// them. Each element then has the offset it has in the array of the product of the
// other dims by the last, of the same layout with {1,0}: tiles do not straddle the
// merged dims, and dims of one element move nothing.
func flatRows(s layout.Shape) layout.Shape {
	n, l := len(s.Dims), s.Layout
	m := l.MinorToMajor
	if len(m) == 0 {
		m = layout.RowMajor(n)
	}
	if n < 2 || s.Kind != layout.Array || slices.Contains(s.Dynamic, true) || len(m) != n || m[0] != n-1 ||
		l.DimLevels != nil || l.Splits != nil || l.Physical != nil || slices.Contains(s.Dims, 0) {
		return s
	}
	if len(l.Tiles) > 0 && len(l.Tiles[0]) == 2 && (l.Tiles[0][0] < 1 || s.Dims[m[1]]%l.Tiles[0][0] != 0) {
		return s
	}
	prev, rows := n-1, int64(1)
	for _, d := range m[1:] {
		if s.Dims[d] == 1 {
			continue
		}
		if d >= prev {
			return s
		}
		prev, rows = d, rows*s.Dims[d]
	}
	l.MinorToMajor = []int{1, 0}
	return layout.Shape{DType: s.DType, Dims: []int64{rows, s.Dims[n-1]}, Layout: l}
}

// planNibbleTiles returns the executor for dst ← src when they are such a pair.
func planNibbleTiles(p *Plan, dst, src layout.Shape) *nibbleTiles {
	tiled, rows, cols, ok := nibblePair(p, dst, src)
	if !ok || len(tiled.Layout.Tiles) != 2 {
		return nil
	}
	r := tiled.Layout.Tiles[0]
	if len(r) != 2 || r[0] < 8 || r[0]%8 != 0 || rows%r[0] != 0 || cols%128 != 0 ||
		tiled.String() != fmt.Sprintf("%s[%d,%d]{1,0:T(%d,128)(8,1)E(4)}", p.dt, rows, cols, r[0]) {
		return nil
	}
	n := &nibbleTiles{p: p, tiled: p.dbits == 4, rows: rows, cols: cols, tileRows: r[0]}
	n.part = n.groups
	return n
}

func (n *nibbleTiles) kernel() string {
	if n.tiled {
		return "nibbles+interleave"
	}
	return "deinterleave+nibbles"
}

func (n *nibbleTiles) describe() string {
	return fmt.Sprintf("%s kernel (%s), 8 rows' nibbles a word, %d-row tiles", n.kernel(), n.p.k().Name, n.tileRows)
}

// copy runs the groups of 8 rows, split over the plan's workers.
func (n *nibbleTiles) copy(dst, src []byte) {
	groups := n.rows / 8
	w := n.p.opts.split.workersFor(int64(n.p.opts.workers), int64(len(dst)+len(src)), groups)
	if w > 1 {
		parallel(n.part, dst, src, groups, w)
	} else {
		n.groups(dst, src, 0, groups)
	}
}

// groups moves the groups of 8 rows [lo, hi). A group's words lie in word row g%per
// of the tiles of its band (per = R/8 word rows a tile); a call moves 128 columns of
// a tile at least, and batches what continues it: with 8-row tiles, the groups, whose
// words run on from tile to tile and band to band (read back streamed, the range's
// two halves at once); where a band has fewer tiles than a tile has word rows (XLA's
// s4[…,256] in 64-row tiles: two of eight), packing joins one word row of one tile
// in each of up to bandBlock whole bands, since a call
// per band cost as much as the moving, while reading back splits a band's groups from
// one tile a call, reading the source in order, with the split's prefetch running
// into the calls that follow, and, streamed, two bands up to pairBands apart at once
// (bandPairs; bench/design-notes.md); in a band that the range cuts, its groups in
// one tile either way; else a group's tiles.
func (n *nibbleTiles) groups(dst, src []byte, lo, hi int64) {
	c, per := n.cols, n.tileRows/8
	tileBytes := n.tileRows * 64    // R rows × 128 nibbles
	rowTiles := c / 128 * tileBytes // a band of tiles across the array
	stream := n.p.nibbleStreams()
	switch {
	case per == 1 && !n.tiled && stream && hi-lo >= 2:
		// Read back streamed, the range's two halves at once, as bandPairs pairs bands.
		h := (hi - lo) / 2
		r := simd.Rows{N: int(h), DstStride: int(8 * c), SrcStride: int(rowTiles), Hints: simd.Hints{Stream: true}}
		w, off := lo*rowTiles, 8*lo*c
		n.p.k().Nibbles.SplitWordsRowsPair(dst[off:], dst[off+h*8*c:], int(c), src[w:], src[w+h*rowTiles:], int(c), r)
		if lo+2*h < hi {
			n.words(dst, src, (hi-1)*rowTiles, 8*(hi-1)*c, c, rowTiles, 8*c, 1, stream)
		}
	case per == 1:
		n.words(dst, src, lo*rowTiles, 8*lo*c, c, rowTiles, 8*c, hi-lo, stream)
	case c/128 < per:
		for g := lo; g < hi; {
			band, j0 := g/per, g%per
			if nb := min((hi-g)/per, bandBlock); n.tiled && j0 == 0 && nb > 0 {
				for j := range per {
					for t := range c / 128 {
						n.words(dst, src, band*rowTiles+t*tileBytes+j*512, 8*(g+j)*c+t*128, 128, rowTiles, 8*per*c, nb, stream)
					}
				}
				g += nb * per
				continue
			}
			if nb := (hi - g) / per; !n.tiled && stream && j0 == 0 && nb >= 2 {
				d := min(nb/2, pairBands)
				n.bandPairs(dst, src, band, d)
				g += 2 * d * per
				continue
			}
			k := min(per-j0, hi-g)
			for t := range c / 128 {
				n.words(dst, src, band*rowTiles+t*tileBytes+j0*512, 8*g*c+t*128, 128, 512, 8*c, k, stream)
			}
			g += k
		}
	default:
		for g := lo; g < hi; g++ {
			n.words(dst, src, g/per*rowTiles+g%per*512, 8*g*c, 128, tileBytes, 128, c/128, stream)
		}
	}
	if stream {
		n.p.k().Fence()
	}
}

// bandPairs reads back, streamed, the narrow tiling's 2d whole bands from band on,
// each of the first d with the band d further: a tile's groups a call, as groups
// reads one band, with the two bands' steps in turn (simd
// Nibbles.SplitWordsRowsPair), so that the stores go to two places far apart, not
// one (bench/design-notes.md).
func (n *nibbleTiles) bandPairs(dst, src []byte, band, d int64) {
	c, per := n.cols, n.tileRows/8
	tileBytes := n.tileRows * 64
	rowTiles, rowBytes := c/128*tileBytes, n.tileRows*c
	r := simd.Rows{N: int(per), DstStride: int(8 * c), SrcStride: 512, Hints: simd.Hints{Stream: true}}
	split := n.p.k().Nibbles.SplitWordsRowsPair
	for b := band; b < band+d; b++ {
		for t := range c / 128 {
			w, off := b*rowTiles+t*tileBytes, b*rowBytes+t*128
			split(dst[off:], dst[off+d*rowBytes:], int(c), src[w:], src[w+d*rowTiles:], 128, r)
		}
	}
}

// pairBands is the most bands apart that bandPairs pairs: 1 MiB of destination at
// XLA's s4[…,256] in 64-row tiles.
const pairBands = 64

// bandBlock is the whole bands a call of the narrow tilings' packing takes (see
// groups): 512 KiB of destination at XLA's s4[…,256] in 64-row tiles.
const bandBlock = 64

// words moves calls×cols columns of 8 rows, c bytes apart, from the byte at off of the
// row-major side, to or from their words at w of the tiled side: each call a batch row,
// ts bytes further on the tiled side and rs on the row-major one.
func (n *nibbleTiles) words(dst, src []byte, w, off, cols, ts, rs, calls int64, stream bool) {
	ks := n.p.k()
	if n.tiled {
		ks.Nibbles.JoinWordsRows(dst[w:], src[off:], int(n.cols), int(cols), simd.Rows{N: int(calls), DstStride: int(ts), SrcStride: int(rs), Hints: simd.Hints{Stream: stream}})
		return
	}
	ks.Nibbles.SplitWordsRows(dst[off:], int(n.cols), src[w:], int(cols), simd.Rows{N: int(calls), DstStride: int(rs), SrcStride: int(ts), Hints: simd.Hints{Stream: stream}})
}

// nibbleWords relays out a 2-D 4-bit array between one element a byte, row-major, and
// the transposed tiling {0,1:T(8,128)(8,1)E(4)}, whose words hold eight consecutive
// elements of a row and whose tiles run down the columns: word j/8 of row i is at word
// (j/8)*rows + i, so the tiling is a transpose of 32-bit words. Blocks of 16 rows are
// packed eight elements a word into scratch (simd Nibbles.PackPairsRows) and transposed into the destination with
// the simd kernels, whose rows then get 64 bytes a block (and back: transposed into
// scratch, unpacked by Nibbles.UnpackPairsRows). Dims must be whole tiles; other shapes take the sub-byte executor.
type nibbleWords struct {
	p          *Plan
	tiled      bool
	rows, cols int64
	scratch    *freeList[[]byte]
	part       func(dst, src []byte, lo, hi int64) // blocks, made once
}

// nibbleStreams reports whether the nibble executors store non-temporally: as other
// plans of their size (the tests force it through p.stream).
func (p *Plan) nibbleStreams() bool {
	return p.stream || p.opts.storesOr(p.dst.FootprintBytes()+p.src.FootprintBytes() >= streamingBytes())
}

// nibbleBlock is the rows of a block: 16 words a destination row, a whole line.
const nibbleBlock = 16

func planNibbleWords(p *Plan, dst, src layout.Shape) *nibbleWords {
	tiled, rows, cols, ok := nibblePair(p, dst, src)
	if !ok || rows%128 != 0 || cols%8 != 0 ||
		tiled.String() != fmt.Sprintf("%s[%d,%d]{0,1:T(8,128)(8,1)E(4)}", p.dt, rows, cols) {
		return nil
	}
	n := &nibbleWords{p: p, tiled: p.dbits == 4, rows: rows, cols: cols}
	n.part = n.blocks
	w := max(p.opts.workers, runtime.GOMAXPROCS(0))
	n.scratch = newFreeList(w, p.opts.workers, func() []byte { return make([]byte, nibbleBlock*cols/2) })
	return n
}

func (n *nibbleWords) kernel() string {
	if n.tiled {
		return "pack+transpose"
	}
	return "transpose+unpack"
}

func (n *nibbleWords) describe() string {
	return fmt.Sprintf("%s kernel (%s), 8 elements a word, blocks of %d rows", n.kernel(), n.p.k().Name, nibbleBlock)
}

func (n *nibbleWords) copy(dst, src []byte) {
	blocks := n.rows / nibbleBlock
	w := n.p.opts.split.workersFor(int64(n.p.opts.workers), int64(len(dst)+len(src)), blocks)
	if w > 1 {
		parallel(n.part, dst, src, blocks, w)
	} else {
		n.blocks(dst, src, 0, blocks)
	}
}

// blocks moves the blocks of 16 rows [lo, hi).
func (n *nibbleWords) blocks(dst, src []byte, lo, hi int64) {
	ks := n.p.k()
	s := n.scratch.get()
	defer n.scratch.put(s)
	c, words := n.cols, n.cols/8 // bytes a row, words a row
	stream := n.p.nibbleStreams()
	trans := ks.Transpose(4, simd.Ordinary)
	if stream {
		trans = ks.Transpose(4, simd.Streaming)
	}
	for b := lo; b < hi; b++ {
		i0 := b * nibbleBlock
		if n.tiled {
			ks.Nibbles.PackPairsRows(s, src[i0*c:], int(c/2), simd.Rows{N: nibbleBlock, DstStride: int(words * 4), SrcStride: int(c)})
			trans(dst[i0*4:], int(n.rows*4), s, int(words*4), nibbleBlock, int(words))
			continue
		}
		ks.Transpose(4, simd.Ordinary)(s, int(words*4), src[i0*4:], int(n.rows*4), int(words), nibbleBlock)
		ks.Nibbles.UnpackPairsRows(dst[i0*c:], s, int(c/2), simd.Rows{N: nibbleBlock, DstStride: int(c), SrcStride: int(words * 4), Hints: simd.Hints{Stream: stream}})
	}
	if stream {
		ks.Fence()
	}
}
