package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// embeddedTargets is targets.json, built into the command so that --check finds its
// targets wherever it runs; --targets FILE reads another file instead.
//
//go:embed targets.json
var embeddedTargets []byte

// embeddedName names the built-in targets in messages.
const embeddedName = "cmd/relayout-bench/targets.json (built in)"

// target is one line of a targets file: a case at a size and worker count, and the
// least value of one metric: ratio_to_fastest_copy (to the fastest copy of the same
// bytes), ratio_to_copy (to Go's copy() alone) or speedup_over_1_worker.
type target struct {
	Case     string   `json:"case"`
	Size     string   `json:"size"`
	Workers  int      `json:"workers"`
	Fastest  *float64 `json:"ratio_to_fastest_copy,omitempty"`
	Ratio    *float64 `json:"ratio_to_copy,omitempty"`
	Speedup  *float64 `json:"speedup_over_1_worker,omitempty"`
	metric   string
	least    float64
	fromFile string
}

type targetsFile struct {
	About   string   `json:"about"`
	Targets []target `json:"targets"`
}

// readTargets returns the targets of path, or the built-in ones when path is "", and
// the name messages give them.
func readTargets(path string) ([]target, string, error) {
	if path == "" {
		ts, err := parseTargets(embeddedTargets, embeddedName)
		return ts, embeddedName, err
	}
	ts, err := loadTargets(path)
	return ts, path, err
}

// loadTargets reads and validates a targets file.
func loadTargets(path string) ([]target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--check: %s: no such file", path)
		}
		return nil, fmt.Errorf("--check: %w", err)
	}
	return parseTargets(data, path)
}

// parseTargets validates the targets of data, named path in messages.
func parseTargets(data []byte, path string) ([]target, error) {
	var f targetsFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("--check: %s: %v", path, err)
	}
	if len(f.Targets) == 0 {
		return nil, fmt.Errorf("--check: %s holds no targets", path)
	}
	for i := range f.Targets {
		t := &f.Targets[i]
		t.fromFile = path
		bad := func(why string) error {
			return fmt.Errorf("--check: %s: target %d (%q): %s", path, i+1, t.Case, why)
		}
		if t.Case == "" || t.Size == "" {
			return nil, bad("needs case and size")
		}
		if t.Workers < 1 {
			return nil, bad("needs workers >= 1")
		}
		n := 0
		for _, v := range []*float64{t.Fastest, t.Ratio, t.Speedup} {
			if v != nil {
				n++
			}
		}
		switch {
		case n != 1:
			return nil, bad("needs exactly one of ratio_to_fastest_copy, ratio_to_copy and speedup_over_1_worker")
		case t.Fastest != nil:
			t.metric, t.least = "ratio to fastest copy", *t.Fastest
		case t.Ratio != nil:
			t.metric, t.least = "ratio to copy()", *t.Ratio
		default:
			if t.Workers == 1 {
				return nil, bad("speedup_over_1_worker needs workers > 1")
			}
			t.metric, t.least = "speedup over 1 worker", *t.Speedup
		}
		if !(t.least > 0) {
			return nil, bad("the target must be above 0")
		}
	}
	return f.Targets, nil
}

// checkLine is one measured value beside its target. For a speedup target, copySpeedup
// is the fastest copy's own speedup in the same run: the median GB/s of the fastest copy
// of the case's bytes by the target's workers over that by one. A case moves no faster
// than the memory lets the copy, so where copySpeedup is below the target the machine,
// not the plan, bounds it.
type checkLine struct {
	t           target
	impl        string
	measured    float64
	copySpeedup float64 // speedup targets only; 0 otherwise
	ok          bool
}

// checkResults compares the results with the targets. A target is checked once per
// simd implementation that ran its case at its size and worker count (and, for a
// speedup, with one worker too); targets of cases not run are skipped.
func checkResults(targets []target, rs []*result) []checkLine {
	find := func(c, size string, w int, impl string) *result {
		for _, r := range rs {
			if r.name == c && r.size == size && r.workers == w && r.impl == impl {
				return r
			}
		}
		return nil
	}
	var out []checkLine
	for _, t := range targets {
		var impls []string
		for _, r := range rs {
			if r.name == t.Case && r.size == t.Size && r.workers == t.Workers && !slices.Contains(impls, r.impl) {
				impls = append(impls, r.impl)
			}
		}
		for _, impl := range impls {
			r := find(t.Case, t.Size, t.Workers, impl)
			var v, cv float64
			switch {
			case t.Speedup != nil:
				one := find(t.Case, t.Size, 1, impl)
				if one == nil {
					continue
				}
				v = median(r.gbps()) / median(one.gbps())
				cv = finite(median(r.fastestGBps()) / median(one.fastestGBps()))
			case t.Ratio != nil:
				v = median(r.copyRatios())
			default:
				v = median(r.ratios())
			}
			out = append(out, checkLine{t: t, impl: impl, measured: finite(v), copySpeedup: cv, ok: v >= t.least})
		}
	}
	return out
}

// errShort is the --check failure: some measured value is below its target.
var errShort = errors.New("below their targets")

// writeCheck prints the check table and the fastest copy it was measured beside (for a
// speedup, the copy's own speedup too); it returns errShort when a value is short of
// its target, and an error when no target applied to the cases run. A speedup short of
// its target where the copy's is short too says so ("SHORT, copy too"): the machine
// (its memory, or other load), not the plan, is what stops it there.
func writeCheck(w io.Writer, lines []checkLine, rs []*result, path string) error {
	if len(lines) == 0 {
		return fmt.Errorf("--check: no target of %s applies to the cases, sizes and worker counts run", path)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "case\tsize\tworkers\tkernel\tmetric\tmeasured\ttarget\tcopy's speedup\tfastest copy GB/s\t\t\n")
	short, bound := 0, 0
	for _, l := range lines {
		verdict, cs := "ok", "-"
		if l.t.Speedup != nil {
			cs = fmt.Sprintf("%.2f", l.copySpeedup)
		}
		if !l.ok {
			verdict = "SHORT"
			short++
			if l.t.Speedup != nil && l.copySpeedup < l.t.least {
				verdict = "SHORT, copy too"
				bound++
			}
		}
		var c float64
		var which string
		for _, r := range rs {
			if r.name == l.t.Case && r.size == l.t.Size && r.workers == l.t.Workers && r.impl == l.impl {
				c, which = median(r.fastestGBps()), r.fastestName()
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%.2f\t%.2f\t%s\t%.2f\t%s\t%s\n",
			l.t.Case, l.t.Size, l.t.Workers, l.impl, l.t.metric, l.measured, l.t.least, cs, c, which, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d of %d checks meet the targets of %s (%s).\n", len(lines)-short, len(lines), path, cpuName())
	if bound > 0 {
		fmt.Fprintf(w, "%d of the short speedups are where the fastest copy of the same bytes did not reach the target either in this run: the machine (its memory, or other load on it) held the copy back too.\n", bound)
	}
	if short > 0 {
		return fmt.Errorf("--check: %d of %d %w", short, len(lines), errShort)
	}
	return nil
}

// targetsApply checks, before any timing, that some target's case, size and worker
// count is among those the run will measure, so that --check fails in a second, naming
// the sizes it has targets for, rather than after minutes of measurement.
func targetsApply(targets []target, jobs []job, workers []int, path string) error {
	var sizes []string
	for _, t := range targets {
		if !slices.Contains(sizes, t.Size) {
			sizes = append(sizes, t.Size)
		}
		if !slices.Contains(workers, t.Workers) || t.Speedup != nil && !slices.Contains(workers, 1) {
			continue
		}
		for _, j := range jobs {
			if j.name == t.Case && j.size == t.Size {
				return nil
			}
		}
	}
	return fmt.Errorf("--check: no target of %s applies to the cases, sizes and worker counts to run (it has targets at %s)", path, strings.Join(sizes, ", "))
}
