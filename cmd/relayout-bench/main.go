// Command relayout-bench measures relayout throughput against the machine's own copy
// bandwidth.
//
// With no arguments it runs the suite: thirteen relayouts (f32 row-major ↔ T(8,128), bf16
// row-major ↔ T(8,128)(2,1), f32 → bf16 fused with T(8,128)(2,1), a 2-D f32 transpose,
// the 4-D permutation {3,2,1,0} → {0,1,2,3}, bf16 T(8,128)(2,1) → T(16,128)(2,1), s8
// row-major → T(32,128)(4,1), f32 → f8e4m3fn fused with T(8,128)(4,1), s8 row-major →
// transposed {0,1:T(8,128)(4,1)}, and s4 one a byte ↔ T(8,128)(8,1)E(4)), each at a cache-resident size (1024×1024, 32^4) and a
// DRAM-sized one (8192×8192, 64^4), with 1 worker and with GOMAXPROCS workers.
//
// Every sample of a case is followed by a sample of each copy of the source's bytes with
// as many workers, split the same way: Go's copy(), the non-temporal copy and C's memcpy
// (built in when the command is built with cgo; a run without it says so once). The
// fastest copy of a sample is the least of their times, and the ratio every report
// quotes is the median of the per-sample fastest_copy_time/case_time, so it holds up
// when the machine's speed drifts. The per-element reference path is
// timed once per case on a smaller shape, beside the measured implementation on the
// same shape; the table reports how many times faster the implementation is.
//
// Output is the Go benchmark format on stdout, one line per sample, which benchstat
// reads (`benchstat -col /impl results.txt`), and a summary table on stderr. --json
// prints one JSON object per case instead, --table the summary on stdout. Before each
// case's results comes a line (starting with '#', which benchstat skips) with the
// bandwidth of each copy at the case's size and worker count and the fastest of them,
// timed beside the case (impl=gocopy, impl=ntcopy and impl=memcpy lines).
//
// --check prints each case's ratio beside its target in targets.json (built into the
// command, or --targets FILE) and exits 1 when one is short.
// It is for people tuning the kernels on a quiet machine, not for CI: timings move
// with the machine and its load.
//
// Usage:
//
//	relayout-bench [--case REGEXP] [--size small|large|both|NxM] [--workers 1,2] [--count N]
//	               [--benchtime D] [--kernel generic|avx2|avx512|all] [--json | --table]
//	               [--plot FILE.svg] [--cpuprofile FILE] [--progress] [--check [--targets FILE]]
//	relayout-bench --from SHAPE --to SHAPE [flags]
//	relayout-bench --list [--case REGEXP] [--size …]
//	relayout-bench --tune FILE [--count N] [--benchtime D]
//
// --stores stream or cache forces how the plans store, to compare the two on a machine;
// --tune measures from which size streaming wins (f32 row-major → T(8,128) at 4 to 256
// MiB moved, the two ways alternated), which transpose block size is fastest (the f32
// transpose, blocks of 64 KiB to 4 MiB a side), the worker split (the smallest copy
// that gains from a second worker, f32 → T(8,128) and the transpose on one worker
// against two at 256 KiB to 32 MiB moved; the units of parallel work, the identical-
// layout copy on two workers), from which size plain transposes stream (256 KiB to
// 32 MiB a side) and whether long streamed runs copy faster with the CPU's string copy
// (REP MOVSB) or non-temporal stores (the f32 identical-layout copy of 256 MiB, one
// worker), and writes a wisdom file that plans read when TPULAYOUT_WISDOM names
// it, in place of the sizes they derive from the caches the CPU reports (virtual
// machines can report far more than they get) and of the copy simd picks by CPU model.
// Neither changes any result.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tpulayout/tpulayout/cmd/internal/flagtext"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/simd"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the benchmark could not run or its output could not be written
	exitUsage = 2 // bad flags
)

// Defaults, chosen so that the default run takes under 3 minutes on 2 cores.
const (
	defaultCount     = 10
	defaultBenchtime = 50 * time.Millisecond
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a bad flag value: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// options are the parsed flags.
type options struct {
	jobs     []job
	st       settings
	json     bool
	table    bool
	plot     string
	cpuprof  string
	progress bool
	list     bool   // --list: print the selected cases and exit
	check    bool   // --check: compare with the targets, exit 1 when short
	targets  string // the targets file (--targets); "" is the built-in targets
	tune     string // --tune: the wisdom file to write
}

func defaultWorkers() string {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		return "1," + strconv.Itoa(n)
	}
	return "1"
}

func newFlagSet() (*flag.FlagSet, func() (*options, error)) {
	fs := flag.NewFlagSet("relayout-bench", flag.ContinueOnError)
	caseRE := fs.String("case", "", "run only the cases whose name matches `REGEXP`")
	size := fs.String("size", "both", "array `SIZE`: small (1024x1024, 32^4), large (8192x8192, 64^4), both, shapes (a fixed set of odd, narrow and 3-row shapes), or NxM")
	workers := fs.String("workers", defaultWorkers(), "comma-separated worker `COUNTS` (goroutines per copy)")
	count := fs.Int("count", defaultCount, "`N` samples (benchmark lines) per case")
	benchtime := fs.Duration("benchtime", defaultBenchtime, "minimum `DURATION` of one sample")
	kernel := fs.String("kernel", simd.Default().Name, "SIMD implementation(s): generic, avx2, avx512, a comma-separated `LIST`, or all")
	jsonOut := fs.Bool("json", false, "print one JSON object per case on stdout instead of benchmark lines")
	table := fs.Bool("table", false, "print the summary table on stdout instead of benchmark lines")
	plot := fs.String("plot", "", "write an SVG bar chart of GB/s per case beside the fastest copy to `FILE`")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile to `FILE`")
	from := fs.String("from", "", "source `SHAPE` of a custom case, e.g. 'f32[512,512]{1,0}' (needs --to; replaces the suite)")
	to := fs.String("to", "", "destination `SHAPE` of the custom case (needs --from)")
	progress := fs.Bool("progress", false, "report progress on stderr even when it is not a terminal")
	check := fs.Bool("check", false, "print each case's ratio beside its target in the targets file and exit 1 when one is short (for tuning, not for CI)")
	list := fs.Bool("list", false, "list the cases that --case and --size select (name, size, source and destination shape) and exit")
	stores := fs.String("stores", "auto", "how plans store (`MODE`): auto (from the sizes, or the wisdom file "+relayout.WisdomEnv+" names), stream (non-temporal) or cache; results are the same")
	tune := fs.String("tune", "", "measure from which size non-temporal stores win on this machine, the fastest transpose block size, the worker split (with 1 and 2 workers), from which size transposes stream and how long streamed runs copy, and write the wisdom `FILE` that plans read when "+relayout.WisdomEnv+" names it (instead of the suite; --count and --benchtime apply)")
	targets := fs.String("targets", "", "`FILE` of targets for --check (default: the built-in cmd/relayout-bench/targets.json)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: relayout-bench [flags]

Relayout-bench times the relayout package on its benchmark suite (or on one --from/--to
pair) beside the fastest copy of the same bytes (Go's copy(), a non-temporal copy, C's
memcpy), and prints Go benchmark lines that benchstat reads (benchstat -col /impl FILE),
then a summary table on stderr.

Flags:
`)
		flagtext.Print(fs.Output(), fs, 0)
	}
	parse := func() (*options, error) {
		o := &options{json: *jsonOut, table: *table, plot: *plot, cpuprof: *cpuprof, progress: *progress, check: *check, targets: *targets, tune: *tune, list: *list}
		if o.json && o.table {
			return nil, usagef("--json and --table both choose stdout's format; give one")
		}
		if *count < 1 {
			return nil, usagef("--count %d: want at least 1", *count)
		}
		if *benchtime < 0 {
			return nil, usagef("--benchtime %v: want a duration >= 0", *benchtime)
		}
		o.st.count, o.st.benchtime = *count, *benchtime
		var err error
		if o.st.workers, err = parseWorkers(*workers); err != nil {
			return nil, err
		}
		if o.st.kernels, err = parseKernels(*kernel); err != nil {
			return nil, err
		}
		if o.st.stores, err = relayout.ParseStores(*stores); err != nil {
			return nil, usagef("--stores %q: want auto, stream or cache", *stores)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if o.tune != "" {
			for _, f := range []string{"case", "size", "from", "to", "check", "json", "table", "plot", "stores", "workers", "kernel"} {
				if set[f] {
					return nil, usagef("--tune measures its own plans: --%s does not apply", f)
				}
			}
			return o, nil
		}
		if set["targets"] && !o.check {
			return nil, usagef("--targets is read by --check; give --check too")
		}
		if set["from"] || set["to"] {
			if o.check {
				return nil, usagef("--check compares the suite's cases with their targets; --from/--to have none")
			}
			if *from == "" || *to == "" {
				return nil, usagef("--from and --to go together")
			}
			if set["case"] || set["size"] {
				return nil, usagef("--from/--to replace the suite: --case and --size do not apply")
			}
		}
		o.jobs, err = parseJobs(*caseRE, *size, *from, *to, set["from"] || set["to"])
		return o, err
	}
	return fs, parse
}

// parseWorkers reads --workers: distinct counts from 1 to 1024, comma-separated.
func parseWorkers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1024 {
			return nil, usagef("--workers %q: want comma-separated counts from 1 to 1024", s)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// parseJobs reads what to run: the one --from/--to case when custom, else the suite's
// cases that --case and --size select.
func parseJobs(caseRE, size, from, to string, custom bool) ([]job, error) {
	if custom {
		j, err := customJob(from, to)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return []job{j}, nil
	}
	var re *regexp.Regexp
	if caseRE != "" {
		var err error
		if re, err = regexp.Compile(caseRE); err != nil {
			return nil, usagef("--case: %v", err)
		}
	}
	sizes, err := parseSizes(size)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	jobs := selectJobs(re, sizes)
	if len(jobs) == 0 {
		return nil, usagef("--case %q matches no case", caseRE)
	}
	return jobs, nil
}

// parseKernels reads --kernel: names simd.Lookup accepts, comma-separated, or "all".
func parseKernels(s string) ([]string, error) {
	var have []string
	for _, k := range simd.Available() {
		have = append(have, k.Name)
	}
	if s == "all" {
		return have, nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if _, ok := simd.Lookup(name); !ok {
			return nil, usagef("--kernel %q: not available on this machine (have %s, or all)", name, strings.Join(have, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// run is the command: flags in args, benchmark output on stdout, errors, progress and
// the summary on stderr. It returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs, parse := newFlagSet()
	fs.SetOutput(io.Discard) // errors are reported below, on one line
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return exitOK
		}
		fmt.Fprintf(stderr, "relayout-bench: %s (see relayout-bench --help)\n", flagtext.Message(err.Error(), nil))
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "relayout-bench: unexpected argument %q (see relayout-bench --help)\n", fs.Arg(0))
		return exitUsage
	}
	o, err := parse()
	if err != nil {
		fmt.Fprintf(stderr, "relayout-bench: %v\n", err)
		return exitUsage
	}
	if o.list {
		if err := writeList(stdout, o.jobs); err != nil {
			fmt.Fprintf(stderr, "relayout-bench: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	if err := bench(o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "relayout-bench: %v\n", err)
		return exitFail
	}
	return exitOK
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func bench(o *options, stdout, stderr io.Writer) (err error) {
	if o.tune != "" {
		return tune(o.tune, tuneDefault, o.st, stderr)
	}
	var targets []target
	if o.check { // before the run, so that a bad file costs no minutes
		if targets, o.targets, err = readTargets(o.targets); err != nil {
			return err
		}
		if err := targetsApply(targets, o.jobs, o.st.workers, o.targets); err != nil {
			return err
		}
	}
	if o.cpuprof != "" {
		f, cerr := os.Create(o.cpuprof)
		if cerr != nil {
			return cerr
		}
		if perr := pprof.StartCPUProfile(f); perr != nil {
			f.Close()
			return perr
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
	}

	// Progress: a self-overwriting line on a terminal, milestone lines with --progress.
	clearLine := func() {}
	switch {
	case isTerminal(stderr):
		line := func(format string, args ...any) {
			fmt.Fprintf(stderr, "\r\x1b[K"+format, args...)
		}
		o.st.progress, o.st.tick = line, line
		clearLine = func() { fmt.Fprint(stderr, "\r\x1b[K") }
	case o.progress:
		o.st.progress = func(format string, args ...any) {
			fmt.Fprintf(stderr, format+"\n", args...)
		}
	}

	if cMemcpy == nil {
		io.WriteString(stderr, noMemcpyLine)
	}
	if !o.json && !o.table {
		if err := writeConfig(stdout, o.st.kernels); err != nil {
			return err
		}
	}
	var results []*result
	start := time.Now()
	err = runJobs(o.jobs, o.st, func(r *result) error {
		results = append(results, r)
		clearLine() // stdout may be the same terminal
		switch {
		case o.json:
			return writeJSON(stdout, r)
		case o.table:
			return nil
		}
		return writeBench(stdout, r)
	})
	clearLine()
	if err != nil {
		return err
	}
	if o.plot != "" {
		title := fmt.Sprintf("relayout GB/s beside the fastest copy — %s, simd %s", strings.TrimSpace(cpuName()), strings.Join(o.st.kernels, ","))
		if err := writeFileAtomic(o.plot, plotSVG(results, title)); err != nil {
			return err
		}
	}
	checkOut := stderr
	switch {
	case o.table:
		if err := writeTable(stdout, results); err != nil {
			return err
		}
		checkOut = stdout
	case !o.json:
		if err := writeTable(stderr, results); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%d results in %.1fs\n", len(results), time.Since(start).Seconds())
	}
	if o.check {
		return writeCheck(checkOut, checkResults(targets, results), results, o.targets)
	}
	return nil
}
