package relayout

import (
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// Loop order for N-D permutations.
//
// A transpose kernel block moves rows×cols units between the destination-contiguous
// loop and the source-contiguous one. When those loops are short (the dims of a 4-D
// permutation, 64 f32 = 256 bytes), every block reads and writes rows of a few lines
// each, one per row of the other side: the plain dst-major order of the outer loops then
// reads the source in pieces of a few lines spread over the whole array, which the
// prefetchers cannot follow and DRAM serves a page per piece.
//
// permuteOrder reorders and blocks the outer loops so that both streams stay long: the
// outer loop that continues the source rows (its source stride is the block's source
// row) goes innermost, split so that a stream runs for at least permRun bytes; the
// one that continues the destination rows goes just outside it, split the same way, so
// that within one such group each destination row is written permRun bytes in a row
// too. The group's working set (all its blocks, both sides) is kept within the
// transpose block budget (WithBlockBytes, the L2 cache by default); when it does not
// fit, the destination's run gives way first, since the destination is written with
// non-temporal stores that need no read, while every source line that falls out of a
// stream is a stall.
//
// Before that, a block of many rows is cut (capStreams): each of its rows is a source
// stream, and blocks of 128 or 256 rows ran slower than the same blocks cut to 32 or 64
// rows (bench/design-notes.md).

// permRun is the contiguous run, in bytes, that each side's streams get per visit.
const permRun = 2048

// A block reads one source stream per row (k.rows of them). Above permMaxStreams,
// capStreams cuts the rows to permStreams, or more while a destination row of the block
// would be under permDstRow bytes (two lines).
const (
	permMaxStreams = 64
	permStreams    = 32
	permDstRow     = 128
)

// capStreams cuts a block of more than permMaxStreams rows (the destination-contiguous
// loop) to fewer; the rest of that loop becomes an outer loop, which continues the
// destination rows and is ordered below like any other.
func (p *Plan) capStreams(k *transposeKernel, db int64) bool {
	if k.rows <= permMaxStreams || len(p.outer)+3 > maxDims {
		return false
	}
	c := int64(permStreams)
	for c*k.unit*db < permDstRow {
		c *= 2
	}
	if k.rows <= c || k.rows%c != 0 {
		return false
	}
	for i, l := range p.inner {
		if l.dstStr == k.unit && l.srcStr == k.srcRow && l.size == k.rows {
			in, out := splitBy(l, c)
			p.inner[i] = in
			p.outer = append(p.outer, out)
			k.rows = c
			return true
		}
	}
	return false
}

// permuteOrder applies the order above to p.outer for a transpose kernel whose rows
// are shorter than permRun on either side, in a plan too large for the cache order.
// It returns whether it changed anything. Blocks of many rows are cut first (see
// capStreams).
func (p *Plan) permuteOrder(k *transposeKernel) bool {
	if len(p.outer) < 2 || len(p.outer)+2 > maxDims { // runRange's counters
		return false
	}
	budget := int64(p.opts.blockBytes) // the transpose block's budget, one side: L2 by default
	if p.src.FootprintBytes()+p.dst.FootprintBytes() <= budget {
		return false // both arrays fit in the cache: the number of streams does not matter
	}
	sb, db := int64(p.sbits/8), int64(p.dbits/8)
	if k.cols*k.unit*sb >= permRun && k.rows*k.unit*db >= permRun {
		return false
	}
	for _, l := range p.outer {
		if l.tab != nil {
			return false
		}
	}
	capped := p.capStreams(k, db)
	srcRow, dstRow := k.cols*k.unit, k.rows*k.unit // elements per block row on each side
	is, id := -1, -1
	for i, l := range p.outer {
		if l.srcStr == srcRow && is < 0 {
			is = i
		}
		if l.dstStr == dstRow && id < 0 && l.srcStr != srcRow {
			id = i
		}
	}
	if is < 0 {
		return capped
	}
	ls := p.outer[is]
	gs := permGroup(ls.size, srcRow*sb)
	gd, ld := int64(1), loop{}
	if id >= 0 {
		ld = p.outer[id]
		gd = permGroup(ld.size, dstRow*db)
	}
	// Keep the group in the budget: the destination gives way first, once the source's
	// run fits alone.
	block := k.rows * k.cols * k.unit * (sb + db)
	for gs > 1 && block*gs > budget {
		gs = smallerDivisor(ls.size, gs)
	}
	for gd > 1 && block*gs*gd > budget {
		gd = smallerDivisor(ld.size, gd)
	}
	for gs > 1 && block*gs*gd > budget {
		gs = smallerDivisor(ls.size, gs)
	}
	if gs == 1 && gd == 1 && is == len(p.outer)-1 {
		return capped
	}
	var rest []loop
	for i, l := range p.outer {
		if i != is && i != id {
			rest = append(rest, l)
		}
	}
	sIn, sOut := splitBy(ls, gs)
	if id >= 0 {
		dIn, dOut := splitBy(ld, gd)
		rest = append(rest, dOut, sOut, dIn)
	} else {
		rest = append(rest, sOut)
	}
	rest = append(rest, sIn)
	p.outer = slices.DeleteFunc(rest, func(l loop) bool { return l.size == 1 })
	return true
}

// permGroup is the number of values of a loop that continues rows of rowBytes to make
// runs of at least permRun bytes: the smallest divisor of size that does (so the split
// adds no edge; a power of two when size is one), or size.
func permGroup(size, rowBytes int64) int64 {
	g := min(layout.CeilDiv(permRun, rowBytes), size)
	for size%g != 0 {
		g++
	}
	return g
}

// smallerDivisor is the largest divisor of size below g (1 at least): a group that
// permGroup made, cut to fit the budget.
func smallerDivisor(size, g int64) int64 {
	for g--; g > 1 && size%g != 0; g-- {
	}
	return max(g, 1)
}

// splitBy splits l into an inner loop of g values and an outer one of size/g; g divides
// l.size.
func splitBy(l loop, g int64) (in, out loop) {
	in = loop{size: g, dstStr: l.dstStr, srcStr: l.srcStr, dim: l.dim, place: l.place}
	out = loop{size: l.size / g, dstStr: l.dstStr * g, srcStr: l.srcStr * g, dim: l.dim, place: l.place * g}
	return in, out
}
