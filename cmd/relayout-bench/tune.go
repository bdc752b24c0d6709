package main

import (
	"fmt"
	"io"
	"math"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/simd"
)

// tuneSizes are the bytes of source and destination together at which --tune times
// streamed against cached stores: from the L2 caches' sizes to well past any
// last-level cache.
var tuneSizes = []int64{4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20, 256 << 20}

// tune measures this machine's choices and writes them to the wisdom file at path:
// from which size non-temporal stores win (f32 row-major → T(8,128), the commonest
// plan, streamed against cached), whether long streamed runs copy with the CPU's string
// copy (tuneStringCopy), the fastest transpose block size (the f32 transpose at the
// largest of those sizes), the worker split (see tuneWorkers and tuneUnitSize) and from
// which size plain transposes stream (tuneTransposeStreaming). Each choice is timed
// with the ones measured before it in force, its ways alternated st.count times.
func tune(path string, sc tuneScale, st settings, stderr io.Writer) error {
	var w relayout.Wisdom
	wins := make([]bool, len(sc.stores))
	moved := make([]int64, len(sc.stores))
	var last job
	for i, bytes := range sc.stores {
		last = square("{1,0}", "{1,0:T(8,128)}", max(128, int64(math.Sqrt(float64(bytes)/8))/128*128))
		ns, err := timeWays(last, w, st, relayout.WithStores(relayout.StoresStream), relayout.WithStores(relayout.StoresCache))
		if err != nil {
			return err
		}
		wins[i], moved[i] = ns[0] < ns[1], 2*int64(last.src.Dims[0]*last.src.Dims[1]*4)
		fmt.Fprintf(stderr, "tune: f32[%s] → T(8,128), %s moved: streamed %.3f ns/B, cached %.3f ns/B\n", last.size, fmtBytes(moved[i]), ns[0], ns[1])
	}
	w.StreamingBytes = winsFrom(moved, wins)
	var err error
	if w.StringCopy, err = tuneStringCopy(w, sc.strings, st, stderr); err != nil {
		return err
	}
	if w.BlockBytes, err = tuneBlock(last.src.Dims[0], w, st, stderr); err != nil {
		return err
	}
	if w.WorkerBytes, err = tuneWorkers(w, sc.workers, st, stderr); err != nil {
		return err
	}
	if w.UnitsPerWorker, w.SplitBytes, err = tuneUnitSize(w, sc.units, sc.split, st, stderr); err != nil {
		return err
	}
	if w.TransposeStreamingBytes, err = tuneTransposeStreaming(w, sc.transpose, st, stderr); err != nil {
		return err
	}
	w.CPU = cpuName()
	if err := relayout.WriteWisdom(path, &w); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tune: streaming from %s moved, %s, transpose blocks of %s, a worker for each %s moved, %d units a worker of %s or more, plain transposes streaming from %s; wrote %s (use it with %s=%s)\n",
		fmtBytes(w.StreamingBytes), stringCopyText(w.StringCopy), fmtBytes(int64(w.BlockBytes)), fmtBytes(w.WorkerBytes), w.UnitsPerWorker, fmtBytes(w.SplitBytes), fmtBytes(w.TransposeStreamingBytes), path, relayout.WisdomEnv, path)
	return nil
}

// timeWays times j planned one worker each way (an option each) under the wisdom
// base, the ways alternated, and returns their median ns per source byte.
func timeWays(j job, base relayout.Wisdom, st settings, ways ...relayout.Option) ([]float64, error) {
	opts := make([][]relayout.Option, len(ways))
	for i, o := range ways {
		opts[i] = []relayout.Option{relayout.WithWorkers(1), o}
	}
	ns, _, err := timeForced(j, base, st, nil, opts...)
	return ns, err
}

// tuneBlocks are the transpose block sizes (one side) --tune tries.
var tuneBlocks = []int{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}

// tuneBlock times the f32 n×n transpose with each of tuneBlocks, one worker, the sizes
// alternated, and returns the block with the least median time.
func tuneBlock(n int64, base relayout.Wisdom, st settings, stderr io.Writer) (int, error) {
	j := job{name: "tune", dst: layout.MustParse(fmt.Sprintf("f32[%d,%d]{0,1}", n, n)), src: layout.MustParse(fmt.Sprintf("f32[%d,%d]{1,0}", n, n))}
	ways := make([]relayout.Option, len(tuneBlocks))
	for i, blk := range tuneBlocks {
		ways[i] = relayout.WithBlockBytes(blk)
	}
	ns, err := timeWays(j, base, st, ways...)
	if err != nil {
		return 0, err
	}
	best := 0
	for i := range ns {
		fmt.Fprintf(stderr, "tune: f32[%d,%d] transpose, blocks of %d KiB: %.3f ns/B\n", n, n, tuneBlocks[i]>>10, ns[i])
		if ns[i] < ns[best] {
			best = i
		}
	}
	return tuneBlocks[best], nil
}

// tuneStringCopy measures how plans copy long streamed runs (relayout.Wisdom's
// StringCopy): the f32 n×n copy between identical row-major layouts, one worker,
// streamed, with the CPU's string copy and with non-temporal vector stores, alternated;
// it returns the faster. Where the kernel set has no string copy (the generic set of
// purego builds) there is no choice to measure and it returns nil.
func tuneStringCopy(base relayout.Wisdom, n int64, st settings, stderr io.Writer) (*bool, error) {
	if k := simd.Default(); k.WithStringCopy(true) == k.WithStringCopy(false) {
		fmt.Fprintf(stderr, "tune: the %s kernels have no string copy to time\n", k.Name)
		return nil, nil
	}
	j := square("{1,0}", "{1,0}", n)
	way := []relayout.Option{relayout.WithWorkers(1), relayout.WithStores(relayout.StoresStream)}
	ns, b, err := timeForced(j, base, st, func(w *relayout.Wisdom, i int) { on := i == 0; w.StringCopy = &on }, way, way)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "tune: f32[%s] copy, %s moved, 1 worker, streamed: string copy %.3f ns/B, non-temporal stores %.3f ns/B\n",
		j.size, fmtBytes(int64(len(b.src)+len(b.dst))), ns[0], ns[1])
	on := ns[0] < ns[1]
	return &on, nil
}

// stringCopyText says what the wisdom's StringCopy chose, for --tune's summary.
func stringCopyText(on *bool) string {
	switch {
	case on == nil:
		return "long runs copied as the CPU rule says"
	case *on:
		return "long runs copied with the string copy"
	}
	return "long runs copied with non-temporal stores"
}
