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
// count times a size, and writes the wisdom file: the smallest size from which
// streaming won at every larger one (past the largest measured when it never did).
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
	w := &relayout.Wisdom{CPU: cpuName(), StreamingBytes: streamingFrom(cs)}
	if err := relayout.WriteWisdom(path, w); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tune: streaming from %d MiB; wrote %s (use it with %s=%s)\n", w.StreamingBytes>>20, path, relayout.WisdomEnv, path)
	return nil
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
