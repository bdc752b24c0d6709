package relayout

import (
	"math"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// Units of parallel work.
//
// A copy runs its outer iterations on its workers, each worker a contiguous range of
// them (see parallel). A plan whose loops all fold into one kernel run (identical
// layouts, a conversion between dtypes in one layout, most 1-D arrays) has one outer
// iteration, and a plan whose outer loops fold into few repeats has few: neither would
// use more than that many workers. When a plan runs on several workers, compile cuts
// such a run (splitRun) or such repeats (splitRepeats) into parts, so that the outer
// iterations are at least unitsWanted when the array is large enough. Cuts only change
// which kernel call moves which elements, never an element's offset: every element is
// still moved once and the padding written once. A cut keeps the loops inside it whole,
// so a (2,1) pair is still moved by one call; sub-byte elements are moved as bytes
// (see subByte), whose packing passes split at whole bytes.

// workSplit is how a plan's copies split over workers: measured by relayout-bench --tune
// where a wisdom has it (see defaultSplit), else the defaults below.
type workSplit struct {
	workerBytes    int64 // the least a worker moves (see workersFor)
	splitBytes     int64 // the least a unit of parallel work moves
	unitsPerWorker int64 // units a worker, where the array is large enough
}

// workerBytes is the default least a worker moves: four L2 caches' worth, where a
// second worker started to gain on every kernel (bench/design-notes.md). The tests
// lower it, so that their small arrays take the parallel paths too.
var workerBytes = 4 * int64(cacheBlockBytes())

// splitBytes is the default least a unit of parallel work moves (source and
// destination bytes together): below it the calls and the odometer cost more than an
// even split saves. The tests lower it with workerBytes, so that their small arrays
// are cut too.
var splitBytes = int64(256 << 10)

// unitsPerWorker is the default units each worker should have: ranges of whole units
// then differ by at most an eighth of a worker's share.
const unitsPerWorker = 8

// defaultSplit is the wisdom's split (relayout-bench --tune) where it has one, field
// by field, else the defaults.
func defaultSplit() workSplit {
	s := workSplit{workerBytes: workerBytes, splitBytes: splitBytes, unitsPerWorker: unitsPerWorker}
	if w := wisdom.Load(); w != nil {
		if w.WorkerBytes > 0 {
			s.workerBytes = w.WorkerBytes // measured
		}
		if w.SplitBytes > 0 {
			s.splitBytes = w.SplitBytes
		}
		if w.UnitsPerWorker > 0 {
			s.unitsPerWorker = int64(w.UnitsPerWorker)
		}
	}
	return s
}

// unitsWanted is how many outer iterations the plan should have: 1 when it runs on one
// worker (see workersFor), else unitsPerWorker a worker, no unit below splitBytes.
func (p *Plan) unitsWanted() int64 {
	bytes := p.src.FootprintBytes() + p.dst.FootprintBytes()
	s := p.opts.split
	w := s.workersFor(int64(p.opts.workers), bytes, math.MaxInt64)
	if w <= 1 {
		return 1
	}
	return max(w, min(s.unitsPerWorker*w, bytes/s.splitBytes))
}

// splitRun cuts a copy kernel's run, loops[run] (innermost first, contiguous on both
// sides), when the loops outside it make fewer than want iterations: run loops from the
// outermost in leave the run whole until the ones left make enough pieces, or one, cut
// in two (see cut), does. It returns the loops (the cut one replaced by its inner part,
// the outer part appended) and the indices of the run that is left. The innermost loop
// stays in the run.
func (p *Plan) splitRun(loops []loop, run []int, want int64) ([]loop, []int) {
	others := int64(1)
	for i, l := range loops {
		if !slices.Contains(run, i) {
			others *= l.size
		}
	}
	if others >= want {
		return loops, run
	}
	pieces, outside := layout.CeilDiv(want, others), int64(1)
	for c := len(run) - 1; c >= 0; c-- {
		need := layout.CeilDiv(pieces, outside)
		if need <= 1 {
			return loops, run[:c+1]
		}
		l := loops[run[c]]
		if l.size > need {
			if in, out, ok := p.cut(l, need); ok {
				loops = append(slices.Clone(loops), out)
				loops[run[c]] = in
				return loops, run[:c+1]
			}
		}
		if c == 0 {
			break
		}
		outside *= l.size
	}
	return loops, run
}

// cut splits l into an inner loop of b values and an outer one of about need values,
// at a 64-byte boundary of both sides when the loop's strides allow it: b exactly
// divides l, or, for the top loop of its dim (see splitLoop), need not (the last part
// reaches past the data, which the edge paths clip). ok is false when no such b is
// smaller than l.
func (p *Plan) cut(l loop, need int64) (in, out loop, ok bool) {
	if l.tab != nil || l.size < 2 {
		return loop{}, loop{}, false
	}
	align := max(lineValues(l.dstStr*int64(p.dbits/8)), lineValues(l.srcStr*int64(p.sbits/8)))
	b := int64(0)
	for d := need; d <= 2*need && d <= l.size; d++ { // an exact cut near need parts
		if l.size%d == 0 && l.size/d%align == 0 {
			b = l.size / d
			break
		}
	}
	if b == 0 && l.place*l.size >= p.bounds[l.dim].size {
		b = layout.CeilDiv(layout.CeilDiv(l.size, need), align) * align
	}
	if b == 0 || b >= l.size {
		return loop{}, loop{}, false
	}
	in = loop{size: b, dstStr: l.dstStr, srcStr: l.srcStr, dim: l.dim, place: l.place}
	out = loop{size: layout.CeilDiv(l.size, b), dstStr: l.dstStr * b, srcStr: l.srcStr * b, dim: l.dim, place: l.place * b}
	return in, out, true
}

// lineValues is the fewest values of a loop whose step is stride bytes that span a
// whole number of 64-byte lines.
func lineValues(stride int64) int64 {
	v := int64(1)
	for v < 64 && stride*v%64 != 0 {
		v *= 2
	}
	return v
}

// minRepeats is the fewest repeats splitRepeats leaves in a call of a kernel other
// than copy: the tile kernels take up to 8 repeats at once (see planTiles), staging
// transposes need more than one (see stagesRows), and packings ask for the next rows
// by repeats (see planChunk). Copy runs need none of that.
const minRepeats = 8

// splitRepeats cuts the kernel's repeats (the innermost outer loop, folded into each
// call) when the outer loops make fewer than want iterations: into the fewest parts
// from there that divide them exactly, or as many as there can be, each part an outer
// iteration of minRepeats repeats or more (one or more for copy kernels). The repeats then reach exactly as far as
// before, so the edge checks see the same blocks.
func (p *Plan) splitRepeats(kern kernel, want int64) {
	k := kern.base()
	chunks := int64(1)
	for _, l := range p.outer {
		chunks *= l.size
	}
	if chunks >= want {
		return
	}
	least := int64(minRepeats)
	if kern.kind() == kCopy {
		least = 1
	}
	need, d := layout.CeilDiv(want, chunks), int64(1)
	for c := int64(2); c <= k.rep/least && d < need; c++ {
		if k.rep%c == 0 {
			d = c
		}
	}
	if d == 1 {
		return
	}
	b := k.rep / d
	p.outer = append(p.outer, loop{size: d, dstStr: b * k.repDst, srcStr: b * k.repSrc, dim: k.repDim, place: b * k.repPlace})
	k.rep = b
}
