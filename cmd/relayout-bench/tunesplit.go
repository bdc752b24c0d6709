package main

import (
	"fmt"
	"io"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// tuneScale is the sizes --tune measures at (the tests pass small ones).
type tuneScale struct {
	stores    []int64 // bytes moved by f32 → T(8,128), streamed against cached
	workers   []int64 // sides n of the f32 n×n copies timed on one worker against two
	transpose []int64 // sides n of the f32 n×n transposes timed streamed against cached
	units     int64   // side n of the f32 n×n identical-layout copy whose units a worker are timed
	split     int64   // side n of the one whose least unit size is timed
	strings   int64   // side n of the one timed with the string copy and without
}

var tuneDefault = tuneScale{
	stores:    tuneSizes,
	workers:   []int64{128, 256, 384, 512, 768, 1024, 1536, 2048, 2816}, // 128 KiB to 60.5 MiB moved
	transpose: []int64{256, 384, 512, 768, 1024, 1536, 2048, 2816},      // 256 KiB to 30.25 MiB a side
	units:     5760,                                                     // 253 MiB moved
	split:     1408,                                                     // 15.1 MiB moved
	strings:   8192,                                                     // 512 MiB moved, relayout-bench's large copy
}

// tuneUnits are the units a worker --tune tries, and tuneSplits the least bytes of a unit.
var (
	tuneUnits  = []int{1, 2, 4, 8, 16, 32, 64}
	tuneSplits = []int64{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}
)

// forced makes a plan of j with the wisdom base and the choices set changes, restoring
// the wisdom before it returns: --tune times a choice by planning with it.
func forced(j job, base relayout.Wisdom, set func(*relayout.Wisdom), opts ...relayout.Option) (*relayout.Plan, error) {
	w := base
	set(&w)
	defer relayout.SetWisdom(&w)()
	return relayout.NewPlan(j.dst, j.src, opts...)
}

// timeForced times j planned each way under the wisdom base, the ways alternated, and
// returns each way's median ns per source byte and the buffers it timed on. Way i
// plans with the choices set(w, i), when set is not nil, and the options ways[i].
func timeForced(j job, base relayout.Wisdom, st settings, set func(w *relayout.Wisdom, i int), ways ...[]relayout.Option) ([]float64, *buffers, error) {
	b, err := newBuffers(j)
	if err != nil {
		return nil, nil, err
	}
	ps := make([]*relayout.Plan, len(ways))
	for i, opts := range ways {
		choose := func(w *relayout.Wisdom) {
			if set != nil {
				set(w, i)
			}
		}
		if ps[i], err = forced(j, base, choose, opts...); err != nil {
			return nil, nil, err
		}
	}
	ns, err := alternate(ps, b, st)
	return ns, b, err
}

// alternate times each plan on b, the plans alternated count times, and returns each
// one's median ns per source byte.
func alternate(ps []*relayout.Plan, b *buffers, st settings) ([]float64, error) {
	ops := make([]func(), len(ps))
	for i, p := range ps {
		if err := p.CopyBytes(b.dst, b.src); err != nil {
			return nil, err
		}
		ops[i] = func() { _ = p.CopyBytes(b.dst, b.src) }
	}
	iters := calibrate(ops[0], st.benchtime)
	ns := make([][]float64, len(ops))
	for range st.count {
		for i, op := range ops {
			ns[i] = append(ns[i], float64(timeN(op, iters))/float64(iters)/float64(len(b.src)))
		}
	}
	med := make([]float64, len(ns))
	for i := range ns {
		med[i] = median(ns[i])
	}
	return med, nil
}

// winsFrom is the smallest of sizes (ascending) from which the way timed wins at every
// larger one, or twice the largest when it lost at the largest.
func winsFrom(sizes []int64, wins []bool) int64 {
	from := 2 * sizes[len(sizes)-1]
	for i := len(sizes) - 1; i >= 0 && wins[i]; i-- {
		from = sizes[i]
	}
	return from
}

// square is f32 n×n from layout src to layout dst.
func square(src, dst string, n int64) job {
	return job{name: "tune", size: fmt.Sprintf("%dx%d", n, n),
		dst: layout.MustParse(fmt.Sprintf("f32[%d,%d]%s", n, n, dst)), src: layout.MustParse(fmt.Sprintf("f32[%d,%d]%s", n, n, src))}
}

// tuneWorkers measures the smallest copy worth a second worker: f32 row-major →
// T(8,128) and the f32 transpose, each on one worker against two, at each of sizes;
// for each the smallest size (bytes moved) from which two won at every larger one, and
// of the two the larger. It returns the wisdom's WorkerBytes: half that (a copy takes a
// second worker from two WorkerBytes), 4 KiB at least.
func tuneWorkers(base relayout.Wisdom, sides []int64, st settings, stderr io.Writer) (int64, error) {
	from := int64(0)
	for _, to := range []string{"{1,0:T(8,128)}", "{0,1}"} {
		wins, moved := make([]bool, len(sides)), make([]int64, len(sides))
		for i, n := range sides {
			j := square("{1,0}", to, n)
			ns, b, err := timeForced(j, base, st, func(w *relayout.Wisdom, _ int) { w.WorkerBytes = 4 << 10 },
				[]relayout.Option{relayout.WithWorkers(1)}, []relayout.Option{relayout.WithWorkers(2)})
			if err != nil {
				return 0, err
			}
			wins[i], moved[i] = ns[1] < ns[0], int64(len(b.src)+len(b.dst))
			fmt.Fprintf(stderr, "tune: f32[%s] {1,0} → %s, %s moved: 1 worker %.3f ns/B, 2 workers %.3f ns/B\n", j.size, to, fmtBytes(moved[i]), ns[0], ns[1])
		}
		from = max(from, winsFrom(moved, wins))
	}
	return max(4<<10, from/2), nil
}

// tuneUnitSize measures the unit of parallel work on the identical-layout f32 copy
// with two workers (the plan whose one run compile cuts into units): the units a
// worker, on unitsSide² with no least unit size, then the least unit size, on
// splitSide² with as many units a worker as allowed, each the fastest tried.
func tuneUnitSize(base relayout.Wisdom, unitsSide, splitSide int64, st settings, stderr io.Writer) (units int, split int64, err error) {
	try := func(side int64, n int, set func(w *relayout.Wisdom, i int), name func(i int) string) (int, error) {
		j := square("{1,0}", "{1,0}", side)
		ways := make([][]relayout.Option, n)
		for i := range ways {
			ways[i] = []relayout.Option{relayout.WithWorkers(2)}
		}
		ns, _, err := timeForced(j, base, st, func(w *relayout.Wisdom, i int) { w.WorkerBytes = 4 << 10; set(w, i) }, ways...)
		if err != nil {
			return 0, err
		}
		best := 0
		for i := range ns {
			fmt.Fprintf(stderr, "tune: f32[%s] copy, 2 workers, %s: %.3f ns/B\n", j.size, name(i), ns[i])
			if ns[i] < ns[best] {
				best = i
			}
		}
		return best, nil
	}
	u, err := try(unitsSide, len(tuneUnits),
		func(w *relayout.Wisdom, i int) { w.SplitBytes, w.UnitsPerWorker = 4<<10, tuneUnits[i] },
		func(i int) string { return fmt.Sprintf("%d units a worker", tuneUnits[i]) })
	if err != nil {
		return 0, 0, err
	}
	s, err := try(splitSide, len(tuneSplits),
		func(w *relayout.Wisdom, i int) { w.SplitBytes, w.UnitsPerWorker = tuneSplits[i], 64 },
		func(i int) string { return "units of " + fmtBytes(tuneSplits[i]) + " or more" })
	return tuneUnits[u], tuneSplits[s], err
}

// tuneTransposeStreaming measures from which destination size the f32 n×n transpose
// gains by streaming, one worker, streamed against cached for each of sides: the
// smallest from which streaming won at every larger one (twice the largest when it lost
// there).
func tuneTransposeStreaming(base relayout.Wisdom, sides []int64, st settings, stderr io.Writer) (int64, error) {
	wins, got := make([]bool, len(sides)), make([]int64, len(sides))
	for i, n := range sides {
		j := square("{1,0}", "{0,1}", n)
		ns, b, err := timeForced(j, base, st, nil,
			[]relayout.Option{relayout.WithWorkers(1), relayout.WithStores(relayout.StoresStream)},
			[]relayout.Option{relayout.WithWorkers(1), relayout.WithStores(relayout.StoresCache)})
		if err != nil {
			return 0, err
		}
		wins[i] = ns[0] < ns[1]
		got[i] = int64(len(b.dst))
		fmt.Fprintf(stderr, "tune: f32[%s] transpose, %s a side: streamed %.3f ns/B, cached %.3f ns/B\n", j.size, fmtBytes(got[i]), ns[0], ns[1])
	}
	return winsFrom(got, wins), nil
}
