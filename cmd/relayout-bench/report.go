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
// sample of the case (impl=<simd impl>), one per sample of the copy() yardstick
// (impl=gocopy) and of the non-temporal copy (impl=ntcopy), and one for the per-element
// reference (impl=reference; its ns/op is the sample's time per byte scaled to the full
// size). Custom units end in /op, as testing.B.ReportMetric asks, so benchstat reads them.
func writeBench(w io.Writer, r *result) error {
	var b strings.Builder
	b.WriteString(bandwidthLine(r))
	name := benchName(r, r.impl)
	for i, ns := range r.caseNs {
		fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\t%.4f ratio-to-copy/op\t%.0f B/op\t%.4g allocs/op\n",
			name, r.caseIters, fmtNs(ns), mbps(r.srcBytes, ns), r.copyNs[i]/ns, r.allocB, r.allocs)
	}
	name = benchName(r, "gocopy")
	for _, ns := range r.copyNs {
		fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\n", name, r.copyIters, fmtNs(ns), mbps(r.srcBytes, ns))
	}
	name = benchName(r, "ntcopy")
	for _, ns := range r.ntNs {
		fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\n", name, r.ntIters, fmtNs(ns), mbps(r.srcBytes, ns))
	}
	if r.ref.nsPerB > 0 {
		ns := r.refNsPerOp()
		fmt.Fprintf(&b, "%s\t%d\t%s ns/op\t%.2f MB/s\t%.2f slowdown/op\n",
			benchName(r, "reference"), r.ref.iters, fmtNs(ns), mbps(r.srcBytes, ns), r.ref.slowdown)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// bandwidthLine is the machine's two physical limits at the case's size and worker
// count, measured in the same minutes as the case: Go's copy() and the non-temporal copy
// of the source's bytes, medians in GB/s, and the case against each. It starts with '#',
// so that benchstat neither reads it as a configuration line nor as a result.
func bandwidthLine(r *result) string {
	c, n, g := median(r.copyGBps()), median(r.ntGBps()), median(r.gbps())
	return fmt.Sprintf("# bandwidth case=%s size=%s workers=%d: copy() %.2f GB/s, non-temporal copy %.2f GB/s of %s; this case %.2f GB/s = %.2fx copy(), %.2fx non-temporal copy\n",
		r.name, r.size, r.workers, c, n, fmtBytes(r.srcBytes), g, finite(median(r.ratios())), finite(median(r.ntRatios())))
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
	RatioToNTCopy     float64 `json:"ratio_to_nt_copy"`
	RatioToCopy       float64 `json:"ratio_to_copy"`
	RatioSpread       spread  `json:"ratio_spread"`
	Allocs            float64 `json:"allocs"`
	AllocBytes        float64 `json:"alloc_bytes"`
	ReferenceSlowdown float64 `json:"reference_slowdown"`
	ReferenceGBps     float64 `json:"reference_gbps"`
	ReferenceSample   string  `json:"reference_sample"`
}

func toJSON(r *result) jsonResult {
	g, c, q, n := r.gbps(), r.copyGBps(), r.ratios(), r.ntGBps()
	j := jsonResult{
		Case: r.name, Size: r.size, Src: r.src.String(), Dst: r.dst.String(), SrcBytes: r.srcBytes,
		Workers: r.workers, Impl: r.impl, Kernel: r.kernel, Plan: r.plan, Samples: len(r.caseNs),
		GBps: finite(median(g)), Spread: spreadOf(g), CopyGBps: finite(median(c)), CopySpread: spreadOf(c),
		NTCopyGBps: finite(median(n)), NTCopySpread: spreadOf(n), RatioToNTCopy: finite(median(r.ntRatios())),
		RatioToCopy: finite(median(q)), RatioSpread: spreadOf(q),
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
	fmt.Fprintln(tw, "case\tsize\tworkers\tkernel\tGB/s\t(min–max)\tcopy GB/s\tNT copy GB/s\tratio to copy\tto NT copy\tallocs/op\tspeedup vs per-element")
	for _, r := range rs {
		g, c := r.gbps(), r.copyGBps()
		ref := "-"
		if r.ref.slowdown > 0 {
			ref = fmt.Sprintf("%.0fx", r.ref.slowdown)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s/%s\t%.2f\t(%.2f–%.2f)\t%.2f\t%.2f\t%.2fx\t%.2fx\t%.4g\t%s\n",
			r.name, r.size, r.workers, r.kernel, r.impl, median(g), quantile(g, 0), quantile(g, 1),
			median(c), median(r.ntGBps()), median(r.ratios()), median(r.ntRatios()), r.allocs, ref)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "GB/s: source bytes per second (1 GB = 1e9 B), median over the samples. copy: Go's copy() of the\n"+
		"same bytes by as many goroutines, timed right after each sample; NT copy: the same with\n"+
		"non-temporal stores, timed right after that. ratio: median of the per-pair copy_time/case_time\n"+
		"(and nt_copy_time/case_time). speedup vs per-element: how many times faster this kernel is than the\n"+
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
