package relayout

import (
	"fmt"
	"runtime"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// nibbleTiles relays out a 2-D 4-bit array between one element a byte, row-major
// ({1,0}, as int4 checkpoints are often stored), and TPU tiles of 32-bit words of
// eight rows' nibbles ({1,0:T(R,128)(8,1)E(4)}, R a multiple of 8), in one pass each
// way where the sub-byte executor took three (unpack, byte transpose, pack). Each
// group of 8 rows is joined two rows a byte (rows 2m and 2m+1 as the low and high
// nibble) into four byte rows in scratch, which the 8-bit quad packing kernel
// interleaves into the words of the group's tile rows (simd JoinNibblesRows joins them); reading tiles back
// splits each word's nibbles straight into the group's 8 rows (simd SplitNibbleWordsRows,
// zero-extended as the sub-byte executor's unpacking writes them; the quad unpacking
// into scratch and a split from there took twice as long). Dims must be whole tiles (no
// padding); other shapes take the sub-byte executor.
type nibbleTiles struct {
	p          *Plan
	tiled      bool  // the destination is the tiled side
	rows, cols int64 // the array's dims
	tileRows   int64 // R
	scratch    *freeList[[]byte]
	part       func(dst, src []byte, lo, hi int64) // groups, made once: a method value allocates
}

// nibbleChunk is the columns of a group moved at a time, its byte rows in L2: whole
// 8192-column rows beat narrower chunks (bench/design-notes.md).
const nibbleChunk = 8192

// nibblePair returns the tiled side of a 2-D int4 copy whose other side is row-major,
// a byte an element (the tiled side is dst when the copy packs, src when it unpacks),
// and the copy's dims.
func nibblePair(p *Plan, dst, src layout.Shape) (tiled layout.Shape, rows, cols int64, ok bool) {
	if p.opts.generic || p.dt != p.st || (p.dt != layout.S4 && p.dt != layout.U4) || len(dst.Dims) != 2 {
		return layout.Shape{}, 0, 0, false
	}
	tiled, bytes := dst, src
	if p.dbits == 8 {
		tiled, bytes = src, dst
	}
	rows, cols = dst.Dims[0], dst.Dims[1]
	return tiled, rows, cols, bytes.String() == fmt.Sprintf("%s[%d,%d]{1,0}", p.dt, rows, cols)
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
	if n.tiled {
		// One scratch per worker now, so that Copy does not allocate.
		w := max(p.opts.workers, runtime.GOMAXPROCS(0))
		n.scratch = newFreeList(w, p.opts.workers, func() []byte { return make([]byte, 4*nibbleChunk) })
	}
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

// groups moves the groups of 8 rows [lo, hi).
func (n *nibbleTiles) groups(dst, src []byte, lo, hi int64) {
	ks := n.p.k()
	var s []byte // the joined rows, into tiles only
	if n.tiled {
		s = n.scratch.get()
		defer n.scratch.put(s)
	}
	c := n.cols
	per := n.tileRows / 8           // word rows a tile
	tileBytes := n.tileRows * 64    // R rows × 128 nibbles
	rowTiles := c / 128 * tileBytes // a band of tiles across the array
	stream := n.p.nibbleStreams()
	if !n.tiled && per == 1 {
		// With 8-row tiles a group's words run on from tile to tile, and the groups'
		// bands follow each other: all the groups in one call, a group a batch row.
		ks.SplitNibbleWordsRows(dst[8*lo*c:], int(c), src[lo*rowTiles:], int(c), simd.Rows{N: int(hi - lo), DstStride: int(8 * c), SrcStride: int(rowTiles), Stream: stream})
		if stream {
			ks.Fence()
		}
		return
	}
	rs := [4][]byte{}
	for g := lo; g < hi; g++ {
		// The group's first word: its tile band, its word row within the tiles.
		base := g/per*rowTiles + g%per*512
		for c0 := int64(0); c0 < c; c0 += nibbleChunk {
			cn := min(nibbleChunk, c-c0)
			words := base + c0/128*tileBytes
			r := simd.Rows{N: int(cn / 128), DstStride: 128, SrcStride: int(tileBytes), Stream: stream}
			if n.tiled {
				for m := range rs {
					rs[m] = s[int64(m)*cn : int64(m+1)*cn]
				}
				// The four row pairs in one call: rows 2m and 2m+1 into scratch row m.
				r0 := 8*g*c + c0
				ks.JoinNibblesRows(s, src[r0:], src[r0+c:], int(cn), simd.Rows{N: 4, DstStride: int(cn), SrcStride: int(2 * c)})
				r.DstStride, r.SrcStride = int(tileBytes), 128
				ks.Pack4(simd.Bits8, simd.Bits8)(dst[words:], rs[0], rs[1], rs[2], rs[3], 128, r)
				continue
			}
			// Each tile's 128 words of the group straight into the group's 8 rows.
			ks.SplitNibbleWordsRows(dst[8*g*c+c0:], int(c), src[words:], 128, r)
		}
	}
	if stream {
		ks.Fence()
	}
}

// nibbleWords relays out a 2-D 4-bit array between one element a byte, row-major, and
// the transposed tiling {0,1:T(8,128)(8,1)E(4)}, whose words hold eight consecutive
// elements of a row and whose tiles run down the columns: word j/8 of row i is at word
// (j/8)*rows + i, so the tiling is a transpose of 32-bit words. Blocks of 16 rows are
// packed eight elements a word into scratch (simd PackNibblePairsRows) and transposed into the destination with
// the simd kernels, whose rows then get 64 bytes a block (and back: transposed into
// scratch, unpacked by UnpackNibblePairsRows). Dims must be whole tiles; other shapes take the sub-byte executor.
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
			ks.PackNibblePairsRows(s, src[i0*c:], int(c/2), simd.Rows{N: nibbleBlock, DstStride: int(words * 4), SrcStride: int(c)})
			trans(dst[i0*4:], int(n.rows*4), s, int(words*4), nibbleBlock, int(words))
			continue
		}
		ks.Transpose(4, simd.Ordinary)(s, int(words*4), src[i0*4:], int(n.rows*4), int(words), nibbleBlock)
		ks.UnpackNibblePairsRows(dst[i0*c:], s, int(c/2), simd.Rows{N: nibbleBlock, DstStride: int(c), SrcStride: int(words * 4), Stream: stream})
	}
	if stream {
		ks.Fence()
	}
}
