package relayout

import (
	"math"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// Source prefetch.
//
// The hardware prefetchers follow a stream within a 4 KiB page and start over at the
// next. A plan whose blocks read short pieces of the source (untiling: a 4 KiB f32
// tile a block; tiling a narrow array: f32[N,512] → T(8,128) reads 8 rows of 2 KiB
// per tile row) keeps starting streams cold, and the kernel waits on each. When the source that a group of blocks reads is one contiguous piece and the
// next group reads the piece after it, each block asks for its share of the next
// piece: the whole next piece is on its way while this one is copied.

// maxPiece bounds the pieces: longer ones (tiling 8192² f32 reads whole source rows of
// 32 KiB) are streams the hardware follows, and asking for them ahead lost there.
const maxPiece = 16 << 10

// maxGroupPiece bounds the pieces of groups of several blocks instead: each block reads
// a strided part of the piece (untiling bf16[N,3,M] T(4,128)(2,1): one row pair of every
// tile, 512 B a KiB apart), which the hardware does not follow as one stream.
const maxGroupPiece = 32 << 10

// minPiece: below it, the call costs more than the misses it saves.
const minPiece = 512

// ahead says what runRange asks for after each block.
type ahead struct {
	piece int64 // bytes of source a group of blocks reads; 0: nothing is asked for
	loops int   // the innermost outer loops that make up a group
	share int64 // bytes each block of a group asks for
}

// readsAhead reports whether the plan should ask for its source ahead at all: not when
// the source fits in L2, where the lines are near already and the calls would cost.
// From there on it pays whether or not the copy streams, the arrays in the last-level
// cache included (bench/design-notes.md).
func (p *Plan) readsAhead() bool {
	return p.src.FootprintBytes() > l2Bytes()
}

// planAhead finds the smallest group of blocks (a block, or all iterations of the
// innermost outer loops around it) whose source is one contiguous piece of at most
// maxPiece bytes (maxGroupPiece for several blocks), continued by the next iteration
// of the loop outside the group.
func (p *Plan) planAhead(kern kernel) ahead {
	k := kern.base()
	if !p.readAhead || kern.kind() == kTranspose || kern.kind() == kElem {
		return ahead{}
	}
	sb := int64(p.sbits / 8)
	var group []loop // the source loops of a group, as size and stride
	for _, l := range p.inner {
		group = append(group, loop{size: l.size, srcStr: l.srcStr})
	}
	if k.rep > 1 {
		group = append(group, loop{size: k.rep, srcStr: k.repSrc})
	}
	blocks := int64(1)
	for m := 0; m < len(p.outer); m++ {
		next := p.outer[len(p.outer)-1-m]
		if next.tab != nil {
			break
		}
		piece := next.srcStr * sb
		if piece > maxPiece && (m == 0 || piece > maxGroupPiece) {
			break
		}
		if piece >= minPiece && covers(group, next.srcStr) {
			return ahead{piece: piece, loops: m, share: layout.CeilDiv(piece, blocks)}
		}
		group = append(group, loop{size: next.size, srcStr: next.srcStr})
		blocks *= next.size
	}
	return ahead{}
}

// planNextRows returns, for a same-type packing kernel (k.aheadFrom set) whose calls
// read their p source rows whole and whose next call reads the rows after them
// (pieces too long for planAhead), the bytes from a call's rows to the next call's;
// else 0. Each row is a stream the hardware picks up afresh at every page; the kernel
// asks for the next call's rows as it reads this call's (simd Rows.Ahead), which keeps
// them in flight. Copy kernels read one stream that runs on into the next call's and
// gain nothing, and converting packings (f32 → bf16: twice the bytes read as written)
// lose, so neither asks (bench/design-notes.md).
func (p *Plan) planNextRows(k *packingKernel) int64 {
	if !p.readAhead || !k.interleave || p.sbits != p.dbits || p.ahead.piece > 0 || len(p.outer) == 0 || p.outer[len(p.outer)-1].tab != nil {
		return 0
	}
	if k.rep <= k.aheadFrom {
		return 0
	}
	if next := p.outer[len(p.outer)-1].srcStr * int64(p.sbits/8); next <= math.MaxInt32 {
		return next // simd.Hints.Ahead's range
	}
	return 0
}

// fewReps is the most repeats of a packing call that do not ask ahead: those that
// read at most nextRowsMin source bytes together (or one repeat).
func (k *packingKernel) fewReps(p *Plan) int64 {
	return max(1, nextRowsMin/(k.p*k.n*int64(p.sbits/8)))
}

// nextRowsMin: calls that read less ask for nothing; the lines they would ask for,
// about as many as are in flight at once, are those the call itself reads
// (bench/design-notes.md).
const nextRowsMin = 2 << 10

// repeats runs rows repeats of the kernel on data, asking for the same part of the
// rows of the next outer iteration as it reads them where planNextRows says so.
// Copy and packing kernels, whose calls are the shortest, are called directly, with
// the call set field by field: a composite literal is built aside and copied, and the
// copy's wide loads of the fields just stored stall (bench/design-notes.md).
func (p *Plan) repeats(dst, src, scratch []byte, dOff, sOff, rows int64) {
	var c blockCall
	c.dst, c.src, c.scratch, c.dOff, c.sOff, c.rows, c.stream = dst, src, scratch, dOff, sOff, rows, p.stream
	switch k := p.kern.(type) {
	case *copyKernel:
		c.dstRep, c.n = k.repDst, k.n
		p.copyRuns(k, &c)
	case *packingKernel:
		c.dstRep, c.n = k.repDst, k.n
		if k.nextRows != 0 && rows > k.aheadFrom {
			c.ahead = k.nextRows
		}
		p.packRuns(k, &c)
	default:
		b := k.base()
		c.dstRep, c.n = b.repDst, b.n
		k.call(p, c)
	}
}

// planBlockAhead returns, for a transpose whose blocks each read one contiguous piece
// of the source (a tile) that the next block does not continue (tiles a page or more
// apart: untiling {0,1:T(8,128)}), the piece's bytes, which the transpose loops ask
// for one block ahead; else 0.
func (p *Plan) planBlockAhead(k *transposeKernel) int64 {
	if !p.readAhead || k.rep < 2 || k.srcRow != k.cols*k.unit {
		return 0
	}
	piece := k.rows * k.srcRow
	if b := piece * int64(p.sbits/8); b <= maxPiece && k.repSrc != piece {
		return b
	}
	return 0
}

// covers reports whether loops read exactly the piece [0, n), counting each element as
// one: sorted by stride, each loop starts within the reach of those inside it, and
// together they end at n. A ragged group (200 columns in two tiles of 128) may reach
// past n by less than its innermost run: the edge blocks stop at the data.
func covers(loops []loop, n int64) bool {
	ls := slices.Clone(loops)
	slices.SortFunc(ls, func(a, b loop) int { return cmpInt(a.srcStr, b.srcStr) })
	reach, run := int64(1), int64(0) // elements [0, reach) are read
	for _, l := range ls {
		if l.size == 1 {
			continue
		}
		if l.srcStr > reach {
			return false
		}
		reach += (l.size - 1) * l.srcStr
		if run == 0 {
			run = reach
		}
	}
	return reach >= n && reach < n+run
}

// prefetchNext asks for the block's share of the piece after its group's: block j of
// the group (counting over its loops, whose counters ctr holds) takes bytes
// [j·share, (j+1)·share) of it.
func (p *Plan) prefetchNext(src []byte, sOff int64, ctr *[maxDims]int64) {
	a := &p.ahead
	base, j := sOff, int64(0)
	for i := len(p.outer) - a.loops; i < len(p.outer); i++ {
		l := &p.outer[i]
		base -= ctr[i] * l.srcStr
		j = j*l.size + ctr[i]
	}
	from := base*int64(p.sbits/8) + a.piece + j*a.share
	if to := min(from+a.share, base*int64(p.sbits/8)+2*a.piece, int64(len(src))); from < to {
		p.k().Prefetch(src[from:to])
	}
}
