package main

import (
	"fmt"
	"io"
	"math"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// tuneSizes are the bytes of source and destination together at which --tune times
// streamed against cached stores: from the L2 caches' sizes to well past any
// last-level cache.
var tuneSizes = []int64{4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20, 256 << 20}

// tuneChoice is one size's measurement: the median ns per source byte of each way.
type tuneChoice struct {
	bytes         int64
	stream, cache float64 // ns per source byte
	streamWins    bool
	rows, cols    int64
}

// tune measures from which size non-temporal stores win on this machine, on f32
// row-major → T(8,128) (the copy kernel, the commonest plan), alternating the two ways
// count times a size, and which transpose block size is fastest, on the f32 transpose
// at the largest size; it writes the wisdom file: the smallest size from which
// streaming won at every larger one (past the largest measured when it never did), and
// that block size.
func tune(path string, sizes []int64, st settings, stderr io.Writer) error {
	var cs []tuneChoice
	for _, b := range sizes {
		n := max(128, int64(math.Sqrt(float64(b)/8))/128*128) // f32 n×n each side
		j := job{name: "tune", dst: layout.MustParse(fmt.Sprintf("f32[%d,%d]{1,0:T(8,128)}", n, n)), src: layout.MustParse(fmt.Sprintf("f32[%d,%d]{1,0}", n, n))}
		c, err := tuneOne(j, st)
		if err != nil {
			return err
		}
		c.bytes, c.rows, c.cols = 8*n*n, n, n
		fmt.Fprintf(stderr, "tune: f32[%d,%d] → T(8,128), %d MiB moved: streamed %.3f ns/B, cached %.3f ns/B\n", n, n, c.bytes>>20, c.stream, c.cache)
		cs = append(cs, c)
	}
	last := cs[len(cs)-1]
	block, err := tuneBlock(last.rows, st, stderr)
	if err != nil {
		return err
	}
	w := &relayout.Wisdom{CPU: cpuName(), StreamingBytes: streamingFrom(cs), BlockBytes: block}
	if err := relayout.WriteWisdom(path, w); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tune: streaming from %d MiB, transpose blocks of %d KiB; wrote %s (use it with %s=%s)\n", w.StreamingBytes>>20, w.BlockBytes>>10, path, relayout.WisdomEnv, path)
	return nil
}

// tuneBlocks are the transpose block sizes (one side) --tune tries.
var tuneBlocks = []int{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}

// tuneBlock times the f32 n×n transpose with each of tuneBlocks, one worker, the sizes
// alternated count times, and returns the block with the least median time.
func tuneBlock(n int64, st settings, stderr io.Writer) (int, error) {
	j := job{name: "tune", dst: layout.MustParse(fmt.Sprintf("f32[%d,%d]{0,1}", n, n)), src: layout.MustParse(fmt.Sprintf("f32[%d,%d]{1,0}", n, n))}
	b, err := newBuffers(j)
	if err != nil {
		return 0, err
	}
	ops := make([]func(), len(tuneBlocks))
	for i, blk := range tuneBlocks {
		p, err := relayout.NewPlan(j.dst, j.src, relayout.WithWorkers(1), relayout.WithBlockBytes(blk))
		if err != nil {
			return 0, err
		}
		if err := p.CopyBytes(b.dst, b.src); err != nil {
			return 0, err
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
	best := 0
	for i := range ops {
		fmt.Fprintf(stderr, "tune: f32[%d,%d] transpose, blocks of %d KiB: %.3f ns/B\n", n, n, tuneBlocks[i]>>10, median(ns[i]))
		if median(ns[i]) < median(ns[best]) {
			best = i
		}
	}
	return tuneBlocks[best], nil
}

// streamingFrom is the smallest measured size from which streaming won at every larger
// size, or twice the largest when it lost at the largest.
func streamingFrom(cs []tuneChoice) int64 {
	from := 2 * cs[len(cs)-1].bytes
	for i := len(cs) - 1; i >= 0 && cs[i].streamWins; i-- {
		from = cs[i].bytes
	}
	return from
}

// tuneOne times j streamed and cached, alternately, st.count times each.
func tuneOne(j job, st settings) (tuneChoice, error) {
	b, err := newBuffers(j)
	if err != nil {
		return tuneChoice{}, err
	}
	var ops [2]func()
	for i, s := range []relayout.Stores{relayout.StoresStream, relayout.StoresCache} {
		p, err := relayout.NewPlan(j.dst, j.src, relayout.WithWorkers(1), relayout.WithStores(s))
		if err != nil {
			return tuneChoice{}, err
		}
		if err := p.CopyBytes(b.dst, b.src); err != nil {
			return tuneChoice{}, err
		}
		ops[i] = func() { _ = p.CopyBytes(b.dst, b.src) }
	}
	iters := calibrate(ops[0], st.benchtime)
	var ns [2][]float64
	for range st.count {
		for i, op := range ops {
			ns[i] = append(ns[i], float64(timeN(op, iters))/float64(iters)/float64(len(b.src)))
		}
	}
	c := tuneChoice{stream: median(ns[0]), cache: median(ns[1])}
	c.streamWins = c.stream < c.cache
	return c, nil
}
