package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/simd"
)

// settings are the measurement parameters from the flags.
type settings struct {
	count     int
	benchtime time.Duration
	workers   []int
	kernels   []string
	stores    relayout.Stores
	progress  func(format string, args ...any) // milestones; nil: no progress
	tick      func(format string, args ...any) // per-sample updates; nil: none
}

// result is one case at one size, worker count and kernel implementation, measured
// beside copies of the source bytes.
type result struct {
	job
	workers   int
	impl      string // simd implementation: generic, avx2, avx512
	kernel    string // plan.Kernel(): copy, interleave, …, reference
	plan      string // plan.String()
	srcBytes  int64
	caseIters int // iterations per case sample
	copyIters int // iterations per copy sample
	caseNs    []float64
	copyNs    []float64 // copyNs[i] was timed right after caseNs[i] (each after an untimed run: timeWarm)
	ntIters   int       // iterations per non-temporal copy sample
	ntNs      []float64 // ntNs[i], the non-temporal copy, was timed right after copyNs[i]
	cIters    int       // iterations per memcpy sample
	cNs       []float64 // cNs[i], C's memcpy, was timed right after ntNs[i]; nil without cgo
	allocs    float64   // heap allocations per Copy
	allocB    float64   // heap bytes per Copy
	ref       refSample
}

// refSample is the per-element reference path timed on a smaller shape of the case.
type refSample struct {
	small    job     // the shapes it ran on
	iters    int     // iterations timed
	nsPerB   float64 // ns per source byte
	slowdown float64 // reference time / the measured implementation's time, both on small
}

func (r *result) gbps() []float64 { return rates(r.srcBytes, r.caseNs) }

func (r *result) copyGBps() []float64 { return rates(r.srcBytes, r.copyNs) }

func (r *result) ntGBps() []float64 { return rates(r.srcBytes, r.ntNs) }

func (r *result) memcpyGBps() []float64 { return rates(r.srcBytes, r.cNs) }

// fastestNs are the per-pair times of the fastest copy: the least of copy(), the
// non-temporal copy and memcpy (where built in) timed beside case sample i.
func (r *result) fastestNs() []float64 {
	out := make([]float64, len(r.caseNs))
	for i := range out {
		out[i] = min(r.copyNs[i], r.ntNs[i])
		if i < len(r.cNs) {
			out[i] = min(out[i], r.cNs[i])
		}
	}
	return out
}

func (r *result) fastestGBps() []float64 { return rates(r.srcBytes, r.fastestNs()) }

// fastestName names the copy with the highest median GB/s: gocopy, ntcopy or memcpy.
func (r *result) fastestName() string {
	name, best := "gocopy", median(r.copyGBps())
	if g := median(r.ntGBps()); g > best {
		name, best = "ntcopy", g
	}
	if len(r.cNs) > 0 && median(r.memcpyGBps()) > best {
		name = "memcpy"
	}
	return name
}

// pairRatios are the per-pair ref[i]/case_time[i].
func (r *result) pairRatios(ref []float64) []float64 {
	out := make([]float64, len(r.caseNs))
	for i := range r.caseNs {
		out[i] = ref[i] / r.caseNs[i]
	}
	return out
}

// ratios are the per-pair fastest_copy_time/case_time: the ratio every report quotes.
func (r *result) ratios() []float64 { return r.pairRatios(r.fastestNs()) }

// copyRatios are the per-pair copy_time/case_time, against Go's copy() alone.
func (r *result) copyRatios() []float64 { return r.pairRatios(r.copyNs) }

// ntRatios are the per-pair nt_copy_time/case_time.
func (r *result) ntRatios() []float64 { return r.pairRatios(r.ntNs) }

// refNsPerOp is the reference's time scaled per byte to the case's full size.
func (r *result) refNsPerOp() float64 { return r.ref.nsPerB * float64(r.srcBytes) }

// rates converts ns per copy of n bytes to GB/s (1 GB = 1e9 B, so bytes/ns).
func rates(n int64, ns []float64) []float64 {
	out := make([]float64, len(ns))
	for i, t := range ns {
		out[i] = float64(n) / t
	}
	return out
}

// quantile is the p-quantile of xs with linear interpolation between order statistics
// (R's type 7, NumPy's default); the median of an even count is the mean of the middle two.
func quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

func median(xs []float64) float64 { return quantile(xs, 0.5) }

// fillSource writes deterministic, non-trivial data: for floating-point sources finite
// values of either sign in [0.5, 1) with random mantissas (so conversions round, as
// with real data, instead of meeting NaNs and out-of-range exponents), otherwise
// pseudo-random bytes.
func fillSource(b []byte, dt layout.DType) {
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	// Floats keep the sign and mantissa bits of the random word and set the exponent.
	keep, set := ^uint64(0), uint64(0)
	switch dt {
	case layout.F32:
		keep, set = 0x807FFFFF_807FFFFF, 0x3F000000_3F000000
	case layout.F64:
		keep, set = 0x800FFFFF_FFFFFFFF, 0x3FE00000_00000000
	case layout.BF16:
		keep, set = 0x807F_807F_807F_807F, 0x3F00_3F00_3F00_3F00
	case layout.F16:
		keep, set = 0x83FF_83FF_83FF_83FF, 0x3800_3800_3800_3800
	}
	for i := 0; i < len(b); i += 8 {
		v := next()&keep | set
		for k := 0; k < 8 && i+k < len(b); k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
}

// splitCopy copies src into dst by w goroutines with cp, each copying one contiguous
// 1/w of the bytes (split at 64-byte boundaries); the calling goroutine takes the first
// part, as relayout's executor does. Every copy yardstick uses this split.
func splitCopy(dst, src []byte, w int, cp func(dst, src []byte)) {
	if w <= 1 {
		cp(dst, src)
		return
	}
	n := len(src)
	part := func(i int) (int, int) {
		lo, hi := n*i/w&^63, n*(i+1)/w&^63
		if i == w-1 {
			hi = n
		}
		return lo, hi
	}
	var wg sync.WaitGroup
	for i := 1; i < w; i++ {
		lo, hi := part(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cp(dst[lo:hi], src[lo:hi])
		}()
	}
	lo, hi := part(0)
	cp(dst[lo:hi], src[lo:hi])
	wg.Wait()
}

func copyBytes(dst, src []byte) { copy(dst, src) }

// goCopy is Go's copy() of src into dst by w goroutines (see splitCopy).
func goCopy(dst, src []byte, w int) { splitCopy(dst, src, w, copyBytes) }

// ntCopy is the same split, each part copied by simd's CopyNT, which writes lines that
// miss the cache without reading them first (where the CPU has such stores) and ends
// with one fence per goroutine.
func ntCopy(k *simd.Kernels, dst, src []byte, w int) { splitCopy(dst, src, w, k.CopyNT) }

// timeWarm times n runs of op after one untimed run, so that every sample of a case
// and of each copy is timed in the wake of its own kind, not of the sample before it
// (the case's would otherwise always follow memcpy's, whose wake slows the first large
// copy after it on some machines: bench/design-notes.md).
func timeWarm(op func(), n int) time.Duration {
	op()
	return timeN(op, n)
}

func timeN(op func(), n int) time.Duration {
	t0 := time.Now()
	for range n {
		op()
	}
	return time.Since(t0)
}

// calibrate returns how many iterations of op make one sample last at least d
// (at least 1).
func calibrate(op func(), d time.Duration) int {
	n := 1
	for {
		el := timeN(op, n)
		if el >= d || n >= 1e9 {
			return n
		}
		per := max(float64(el)/float64(n), 1)
		want := int(math.Ceil(float64(d) / per))
		if el >= d/5 {
			return max(want, n)
		}
		n = min(max(want, n+1), 100*n)
	}
}

// allocsPer counts the heap allocations and bytes of one op: the fewest over three
// rounds of n runs, each after a GC, since the runtime's own background work
// sometimes allocates too.
func allocsPer(op func(), n int) (allocs, bytes float64) {
	allocs, bytes = math.Inf(1), math.Inf(1)
	for range 3 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		for range n {
			op()
		}
		runtime.ReadMemStats(&b)
		allocs = min(allocs, float64(b.Mallocs-a.Mallocs)/float64(n))
		bytes = min(bytes, float64(b.TotalAlloc-a.TotalAlloc)/float64(n))
	}
	return allocs, bytes
}

// buffers are one job's arrays: the relayout source and destination and the copy()
// destination.
type buffers struct {
	src, dst []byte
	cp       []byte
}

func newBuffers(j job) (*buffers, error) {
	s, err := buffer.New(j.src)
	if err != nil {
		return nil, err
	}
	d, err := buffer.New(j.dst)
	if err != nil {
		return nil, err
	}
	fillSource(s.Data, j.src.DType)
	return &buffers{src: s.Data, dst: d.Data, cp: make([]byte, len(s.Data))}, nil
}

// measureRef times the per-element reference path (WithKernel("reference")) with w
// workers on the shrunk shape of j.
func measureRef(j job, w int, benchtime time.Duration) (refSample, error) {
	small := job{name: j.name, dst: shrink(j.dst), src: shrink(j.src)}
	nsPerB, iters, err := timeSample(small, benchtime, relayout.WithWorkers(w), relayout.WithKernel("reference"))
	if err != nil {
		return refSample{}, err
	}
	return refSample{small: small, iters: iters, nsPerB: nsPerB}, nil
}

// timeSample times a plan with opts on the shapes of j: the median of three samples of
// at least benchtime, in ns per source byte.
func timeSample(j job, benchtime time.Duration, opts ...relayout.Option) (nsPerB float64, iters int, err error) {
	p, err := relayout.NewPlan(j.dst, j.src, opts...)
	if err != nil {
		return 0, 0, err
	}
	b, err := newBuffers(j)
	if err != nil {
		return 0, 0, err
	}
	op := func() { _ = p.CopyBytes(b.dst, b.src) }
	if err := p.CopyBytes(b.dst, b.src); err != nil { // warm-up, and the only error check
		return 0, 0, err
	}
	n := calibrate(op, benchtime)
	var ns []float64 // the median of three samples: one would be at the mercy of the load
	for range 3 {
		ns = append(ns, float64(timeN(op, n))/float64(n))
	}
	return median(ns) / float64(len(b.src)), n, nil
}

// measure runs one case at one worker count and implementation: count interleaved
// groups of (case sample, copy() sample, non-temporal copy sample, memcpy sample).
func measure(j job, b *buffers, w int, impl string, ref refSample, st settings) (*result, error) {
	p, err := relayout.NewPlan(j.dst, j.src, relayout.WithWorkers(w), relayout.WithKernel(impl), relayout.WithStores(st.stores))
	if err != nil {
		return nil, err
	}
	r := &result{job: j, workers: w, impl: impl, kernel: p.Kernel(), plan: p.String(), srcBytes: int64(len(b.src)), ref: ref}
	if err := p.CopyBytes(b.dst, b.src); err != nil { // warm-up: faults in dst
		return nil, err
	}
	op := func() { _ = p.CopyBytes(b.dst, b.src) }
	cp := func() { goCopy(b.cp, b.src, w) }
	nk := simd.Default()
	nt := func() { ntCopy(nk, b.cp, b.src, w) }
	var mc func()
	if cMemcpy != nil {
		mc = func() { splitCopy(b.cp, b.src, w, cMemcpy) }
	}
	cp()
	r.caseIters = calibrate(op, st.benchtime)
	r.copyIters = calibrate(cp, st.benchtime)
	r.ntIters = calibrate(nt, st.benchtime)
	if mc != nil {
		r.cIters = calibrate(mc, st.benchtime)
	}
	r.allocs, r.allocB = allocsPer(op, min(r.caseIters, 4))
	for i := range st.count {
		if st.tick != nil {
			st.tick("%s size=%s workers=%d impl=%s: sample %d/%d", j.name, j.size, w, impl, i+1, st.count)
		}
		tc := timeWarm(op, r.caseIters)
		tp := timeWarm(cp, r.copyIters)
		tn := timeWarm(nt, r.ntIters)
		r.caseNs = append(r.caseNs, float64(tc)/float64(r.caseIters))
		r.copyNs = append(r.copyNs, float64(tp)/float64(r.copyIters))
		r.ntNs = append(r.ntNs, float64(tn)/float64(r.ntIters))
		if mc != nil {
			r.cNs = append(r.cNs, float64(timeWarm(mc, r.cIters))/float64(r.cIters))
		}
	}
	if ref.nsPerB > 0 { // the reference factor: both paths timed on the sample shape
		fast, _, err := timeSample(ref.small, st.benchtime, relayout.WithWorkers(w), relayout.WithKernel(impl), relayout.WithStores(st.stores))
		if err != nil {
			return nil, err
		}
		r.ref.slowdown = ref.nsPerB / fast
	}
	return r, nil
}

// runJobs measures every job at every worker count and implementation, handing each
// result to emit as soon as it is complete.
func runJobs(jobs []job, st settings, emit func(*result) error) error {
	total := len(jobs) * len(st.workers) * len(st.kernels)
	done := 0
	for _, j := range jobs {
		if st.progress != nil {
			st.progress("%s size=%s: allocating %s", j.name, j.size, j.src)
		}
		b, err := newBuffers(j)
		if err != nil {
			return fmt.Errorf("%s size=%s: %w", j.name, j.size, err)
		}
		for _, w := range st.workers {
			if st.progress != nil {
				st.progress("%s size=%s workers=%d: timing the reference", j.name, j.size, w)
			}
			ref, err := measureRef(j, w, st.benchtime)
			if err != nil {
				return fmt.Errorf("%s size=%s: reference: %w", j.name, j.size, err)
			}
			for _, impl := range st.kernels {
				done++
				if st.progress != nil {
					st.progress("[%d/%d] %s size=%s workers=%d impl=%s", done, total, j.name, j.size, w, impl)
				}
				r, err := measure(j, b, w, impl, ref, st)
				if err != nil {
					return fmt.Errorf("%s size=%s workers=%d impl=%s: %w", j.name, j.size, w, impl, err)
				}
				if err := emit(r); err != nil {
					return err
				}
			}
		}
		runtime.GC() // give the arrays back before the next job allocates its own
	}
	return nil
}
