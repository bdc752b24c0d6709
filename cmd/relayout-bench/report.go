package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/klauspost/cpuid/v2"
	"github.com/tpulayout/tpulayout/simd"
)

// benchPkg is the package the results describe, for benchstat's pkg key.
const benchPkg = "github.com/tpulayout/tpulayout/relayout"

// writeConfig prints the configuration lines of the Go benchmark format
// (golang.org/design/14313-benchmark-format): lower-case keys, values without
// newlines. They hold for every result line after them.
func writeConfig(w io.Writer, impls []string) error {
	l2, l3 := simd.CacheBytes()
	_, err := fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: %s\ncpu: %s\nsimd: %s\nsimd-impl: %s\nl2-bytes: %d\nl3-bytes: %d\n",
		runtime.GOOS, runtime.GOARCH, benchPkg, cpuName(), simd.Features(), strings.Join(impls, ","), l2, l3)
	return err
}

// cpuName is the CPU's brand string, as go test prints it.
func cpuName() string {
	if s := strings.TrimSpace(cpuid.CPU.BrandName); s != "" {
		return s
	}
	return "unknown"
}

// procSuffix is the -GOMAXPROCS suffix go test appends to benchmark names (none for 1).
func procSuffix() string {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		return fmt.Sprintf("-%d", n)
	}
	return ""
}

func benchName(r *result, impl string) string {
	return fmt.Sprintf("BenchmarkRelayout/case=%s/size=%s/workers=%d/impl=%s%s", r.name, r.size, r.workers, impl, procSuffix())
}

// fmtNs prints ns/op the way go test does: integers when large, decimals when small.
func fmtNs(ns float64) string {
	if ns >= 100 {
		return fmt.Sprintf("%.0f", ns)
	}
	return fmt.Sprintf("%.2f", ns)
}

// mbps is MB/s (1 MB = 1e6 B) for n bytes in ns nanoseconds.
func mbps(n int64, ns float64) float64 { return float64(n) / ns * 1e3 }

// writeBench prints the bandwidth line (see bandwidthLine), then one result line per
// sample of the case (impl=<simd impl>), one per sample of each copy yardstick: Go's
// copy() (impl=gocopy), the non-temporal copy (impl=ntcopy) and C's memcpy (impl=memcpy,
// where built in), and one for the per-element reference (impl=reference; its ns/op is
// the sample's time per byte scaled to the full size). Custom units end in /op, as
// testing.B.ReportMetric asks, so benchstat reads them.
func writeBench(w io.Writer, r *result) error {
	var b strings.Builder
	b.WriteString(bandwidthLine(r))
	name := benchName(r, r.impl)
	fast := r.fastestNs()
	for i, ns := range r.caseNs {
		fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\t%.4f ratio-to-fastest-copy/op\t%.0f B/op\t%.4g allocs/op\n",
			name, r.caseIters, fmtNs(ns), mbps(r.srcBytes, ns), fast[i]/ns, r.allocB, r.allocs)
	}
	copies := []struct {
		impl  string
		iters int
		ns    []float64
	}{{"gocopy", r.copyIters, r.copyNs}, {"ntcopy", r.ntIters, r.ntNs}, {"memcpy", r.cIters, r.cNs}}
	for _, c := range copies {
		name = benchName(r, c.impl)
		for _, ns := range c.ns {
			fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\n", name, c.iters, fmtNs(ns), mbps(r.srcBytes, ns))
		}
	}
	if r.ref.nsPerB > 0 {
		ns := r.refNsPerOp()
		fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\t%.2f slowdown/op\n",
			benchName(r, "reference"), r.ref.iters, fmtNs(ns), mbps(r.srcBytes, ns), r.ref.slowdown)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// bandwidthLine is the machine's copy bandwidths at the case's size and worker count,
// measured in the same minutes as the case: Go's copy(), the non-temporal copy and C's
// memcpy (where built in) of the source's bytes, medians in GB/s, the fastest of them,
// and the case against it. It starts with '#', so that benchstat neither reads it as a
// configuration line nor as a result.
func bandwidthLine(r *result) string {
	mc := "not built in"
	if len(r.cNs) > 0 {
		mc = fmt.Sprintf("%.2f GB/s", median(r.memcpyGBps()))
	}
	return fmt.Sprintf("# bandwidth case=%s size=%s workers=%d: copy() %.2f GB/s, non-temporal copy %.2f GB/s, memcpy %s of %s; fastest copy (%s) %.2f GB/s; this case %.2f GB/s = %.2fx the fastest copy\n",
		r.name, r.size, r.workers, median(r.copyGBps()), median(r.ntGBps()), mc, fmtBytes(r.srcBytes),
		r.fastestName(), median(r.fastestGBps()), median(r.gbps()), finite(median(r.ratios())))
}

// fmtBytes prints a byte count in binary units.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.4g KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// spread is the distribution of GB/s over the samples.
type spread struct {
	Min float64 `json:"min"`
	Q1  float64 `json:"q1"`
	Q3  float64 `json:"q3"`
	Max float64 `json:"max"`
}

func spreadOf(xs []float64) spread {
	return spread{Min: finite(quantile(xs, 0)), Q1: finite(quantile(xs, 0.25)), Q3: finite(quantile(xs, 0.75)), Max: finite(quantile(xs, 1))}
}

// jsonResult is one line of --json output.
type jsonResult struct {
	Case              string  `json:"case"`
	Size              string  `json:"size"`
	Src               string  `json:"src"`
	Dst               string  `json:"dst"`
	SrcBytes          int64   `json:"src_bytes"`
	Workers           int     `json:"workers"`
	Impl              string  `json:"impl"`
	Kernel            string  `json:"kernel"`
	Plan              string  `json:"plan"`
	Samples           int     `json:"samples"`
	GBps              float64 `json:"gbps"`
	Spread            spread  `json:"spread"`
	CopyGBps          float64 `json:"copy_gbps"`
	CopySpread        spread  `json:"copy_spread"`
	NTCopyGBps        float64 `json:"nt_copy_gbps"`
	NTCopySpread      spread  `json:"nt_copy_spread"`
	MemcpyGBps        float64 `json:"memcpy_gbps"` // 0 when memcpy is not built in
	MemcpySpread      spread  `json:"memcpy_spread"`
	FastestCopy       string  `json:"fastest_copy"` // gocopy, ntcopy or memcpy
	FastestCopyGBps   float64 `json:"fastest_copy_gbps"`
	RatioToFastest    float64 `json:"ratio_to_fastest_copy"`
	RatioSpread       spread  `json:"ratio_spread"` // of the ratio to the fastest copy
	RatioToNTCopy     float64 `json:"ratio_to_nt_copy"`
	RatioToCopy       float64 `json:"ratio_to_copy"`
	Allocs            float64 `json:"allocs"`
	AllocBytes        float64 `json:"alloc_bytes"`
	ReferenceSlowdown float64 `json:"reference_slowdown"`
	ReferenceGBps     float64 `json:"reference_gbps"`
	ReferenceSample   string  `json:"reference_sample"`
}

func toJSON(r *result) jsonResult {
	g, c, q, n, m := r.gbps(), r.copyGBps(), r.ratios(), r.ntGBps(), r.memcpyGBps()
	j := jsonResult{
		Case: r.name, Size: r.size, Src: r.src.String(), Dst: r.dst.String(), SrcBytes: r.srcBytes,
		Workers: r.workers, Impl: r.impl, Kernel: r.kernel, Plan: r.plan, Samples: len(r.caseNs),
		GBps: finite(median(g)), Spread: spreadOf(g), CopyGBps: finite(median(c)), CopySpread: spreadOf(c),
		NTCopyGBps: finite(median(n)), NTCopySpread: spreadOf(n), MemcpyGBps: finite(median(m)), MemcpySpread: spreadOf(m),
		FastestCopy: r.fastestName(), FastestCopyGBps: finite(median(r.fastestGBps())),
		RatioToFastest: finite(median(q)), RatioSpread: spreadOf(q),
		RatioToNTCopy: finite(median(r.ntRatios())), RatioToCopy: finite(median(r.copyRatios())),
		Allocs: r.allocs, AllocBytes: r.allocB,
		ReferenceSlowdown: finite(r.ref.slowdown), ReferenceSample: r.ref.small.src.String(),
	}
	if r.ref.nsPerB > 0 {
		j.ReferenceGBps = finite(1 / r.ref.nsPerB)
	}
	return j
}

func writeJSON(w io.Writer, r *result) error {
	b, err := json.Marshal(toJSON(r))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeTable prints the human summary: one row per result, medians with min–max.
func writeTable(w io.Writer, rs []*result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tsize\tworkers\tkernel\tGB/s\t(min–max)\tfastest copy GB/s\t\tcopy()\tNT copy\tmemcpy\tratio to fastest\tallocs/op\tspeedup vs per-element")
	for _, r := range rs {
		g := r.gbps()
		ref, mc := "-", "-"
		if r.ref.slowdown > 0 {
			ref = fmt.Sprintf("%.0fx", r.ref.slowdown)
		}
		if len(r.cNs) > 0 {
			mc = fmt.Sprintf("%.2f", median(r.memcpyGBps()))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s/%s\t%.2f\t(%.2f–%.2f)\t%.2f\t%s\t%.2f\t%.2f\t%s\t%.2fx\t%.4g\t%s\n",
			r.name, r.size, r.workers, r.kernel, r.impl, median(g), quantile(g, 0), quantile(g, 1),
			median(r.fastestGBps()), r.fastestName(), median(r.copyGBps()), median(r.ntGBps()), mc,
			median(r.ratios()), r.allocs, ref)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "GB/s: source bytes per second (1 GB = 1e9 B), median over the samples. The copies of the same\n"+
		"bytes by as many workers, each timed right after every sample of the case: Go's copy(), the\n"+
		"non-temporal copy (NT) and C's memcpy (where built in), every sample after one untimed run of its\n"+
		"own; fastest copy: the least of the three times\n"+
		"in each sample, named by the copy with the highest median. ratio to fastest: median of the per-sample\n"+
		"fastest_copy_time/case_time. speedup vs per-element: how many times faster this kernel is than the\n"+
		"per-element reference path (the tests' oracle), both timed on a smaller shape of the case.")
	return err
}

// finite maps NaN and infinities to 0 so that JSON and SVG stay valid.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// writeList prints the selected cases, one a line: name, size, source → destination.
func writeList(w io.Writer, jobs []job) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "case\tsize\tfrom\tto\n")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", j.name, j.size, j.src, j.dst)
	}
	return tw.Flush()
}
