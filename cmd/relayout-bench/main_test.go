package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/simd"
)

// tiny keeps every run in these tests short.
var tiny = []string{"-size", "64x256", "-count", "2", "-benchtime", "1ms"}

func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// benchResult is one parsed result line.
type benchResult struct {
	name   string            // full name without the -procs suffix
	keys   map[string]string // the /key=value parts of the name
	iters  int
	values map[string]float64 // by unit
}

var configKey = regexp.MustCompile(`^[a-z][^\s:]*:`)

// parseBench reads the Go benchmark format the way golang.org/x/perf/benchfmt does
// (golang.org/design/14313-benchmark-format): configuration lines "key: value" with a
// lower-case key without spaces, result lines "BenchmarkName iters value unit…", and
// everything else ignored. It fails the test on a malformed result line.
func parseBench(t *testing.T, text string) (config map[string]string, results []benchResult) {
	t.Helper()
	config = map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if configKey.MatchString(line) {
			k, v, _ := strings.Cut(line, ":")
			config[k] = strings.TrimSpace(v)
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || len(f)%2 != 0 {
			t.Fatalf("result line with %d fields: %q", len(f), line)
		}
		r := benchResult{keys: map[string]string{}, values: map[string]float64{}}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		r.name = name
		for _, part := range strings.Split(name, "/")[1:] {
			k, v, ok := strings.Cut(part, "=")
			if !ok {
				t.Fatalf("name part %q of %q is not key=value", part, f[0])
			}
			r.keys[k] = v
		}
		var err error
		if r.iters, err = strconv.Atoi(f[1]); err != nil || r.iters < 1 {
			t.Fatalf("iterations %q in %q", f[1], line)
		}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("value %q in %q", f[i], line)
			}
			unit := f[i+1]
			if !strings.HasSuffix(unit, "/op") && !strings.HasSuffix(unit, "/s") {
				t.Errorf("unit %q in %q neither ends in /op nor /s", unit, line)
			}
			r.values[unit] = v
		}
		results = append(results, r)
	}
	return config, results
}

// linesPerResult is the benchmark lines of one result at --count 2: two of the case,
// two of each copy (memcpy where built in), one of the reference.
func linesPerResult() int {
	if cMemcpy != nil {
		return 9
	}
	return 7
}

func TestBenchmarkFormat(t *testing.T) {
	code, out, errOut := runArgs(t, append(tiny, "-case", "f32-transpose|s8-rowmajor-to-T32")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	config, results := parseBench(t, out)
	for _, k := range []string{"goos", "goarch", "cpu", "simd", "simd-impl", "l2-bytes", "pkg"} {
		if config[k] == "" {
			t.Errorf("config line %q missing", k)
		}
	}
	if config["pkg"] != "github.com/tpulayout/tpulayout/relayout" {
		t.Errorf("pkg: %q", config["pkg"])
	}
	// Per case and worker count: 2 case lines, 2 lines of each copy (gocopy, ntcopy and,
	// where built in, memcpy), 1 reference line.
	impls := 4 // case, gocopy, ntcopy, reference
	if cMemcpy != nil {
		impls++
	}
	perName := map[string]int{}
	cases := map[string]bool{}
	for _, r := range results {
		perName[r.name]++
		cases[r.keys["case"]] = true
		for _, k := range []string{"case", "size", "workers", "impl"} {
			if r.keys[k] == "" {
				t.Errorf("%s: no %s= in the name", r.name, k)
			}
		}
		if r.keys["size"] != "64x256" && r.keys["case"] != "f32-perm3210" {
			t.Errorf("%s: size %q", r.name, r.keys["size"])
		}
		if r.values["ns/op"] <= 0 || r.values["MB/s"] <= 0 {
			t.Errorf("%s: ns/op %v MB/s %v", r.name, r.values["ns/op"], r.values["MB/s"])
		}
		switch r.keys["impl"] {
		case "gocopy", "ntcopy", "memcpy":
		case "reference":
			if r.values["slowdown/op"] <= 0 {
				t.Errorf("%s: no slowdown/op", r.name)
			}
		default:
			for _, u := range []string{"ratio-to-fastest-copy/op", "allocs/op", "B/op"} {
				if _, ok := r.values[u]; !ok {
					t.Errorf("%s: no %s", r.name, u)
				}
			}
			if r.values["ratio-to-fastest-copy/op"] <= 0 {
				t.Errorf("%s: ratio %v", r.name, r.values["ratio-to-fastest-copy/op"])
			}
		}
	}
	if len(cases) != 2 || !cases["f32-transpose"] || !cases["s8-rowmajor-to-T32x128-4x1"] {
		t.Errorf("-case f32-transpose|s8-rowmajor-to-T32 ran %v", cases)
	}
	if len(perName) != 2*2*impls { // cases × workers (1, GOMAXPROCS or just 1) × impls
		if w := defaultWorkers(); w != "1" || len(perName) != 2*impls {
			t.Errorf("%d distinct names: %v", len(perName), perName)
		}
	}
	for name, n := range perName {
		want := 2
		if strings.HasSuffix(name, "impl=reference") {
			want = 1
		}
		if n != want {
			t.Errorf("%s: %d lines, want %d", name, n, want)
		}
	}
	// One bandwidth line per result, before its lines, which benchstat skips.
	bw := regexp.MustCompile(`(?m)^# bandwidth case=(\S+) size=(\S+) workers=(\d+): copy\(\) ([0-9.]+) GB/s, non-temporal copy ([0-9.]+) GB/s, memcpy ([0-9.]+ GB/s|not built in) of [0-9.]+ [KMG]?i?B; fastest copy \((gocopy|ntcopy|memcpy)\) ([0-9.]+) GB/s; this case [0-9.]+ GB/s = [0-9.]+x the fastest copy$`)
	lines := bw.FindAllStringSubmatch(out, -1)
	if len(lines)*impls != len(perName) {
		t.Errorf("%d bandwidth lines for %d results:\n%s", len(lines), len(perName)/impls, out)
	}
	for _, m := range lines {
		c, _ := strconv.ParseFloat(m[4], 64)
		if c <= 0 {
			t.Errorf("copy bandwidth %q", m[0])
		}
		n, _ := strconv.ParseFloat(m[5], 64)
		if n <= 0 {
			t.Errorf("non-temporal copy bandwidth %q", m[0])
		}
		if f, _ := strconv.ParseFloat(m[8], 64); f < 0.99*max(c, n) {
			t.Errorf("the fastest copy is slower than another: %q", m[0])
		}
		if perName["BenchmarkRelayout/case="+m[1]+"/size="+m[2]+"/workers="+m[3]+"/impl=ntcopy"] != 2 {
			t.Errorf("no ntcopy lines for %q", m[0])
		}
		if (m[6] == "not built in") != (cMemcpy == nil) {
			t.Errorf("memcpy %q with cMemcpy set %v", m[6], cMemcpy != nil)
		}
	}
	// The summary goes to stderr.
	if !strings.Contains(errOut, "ratio to fastest") || !strings.Contains(errOut, "f32-transpose") {
		t.Errorf("no summary table on stderr:\n%s", errOut)
	}
}

func TestJSON(t *testing.T) {
	code, out, errOut := runArgs(t, append(tiny, "-json", "-workers", "1", "-case", "^bf16-rowmajor|perm")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON lines, want 2:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		for _, k := range []string{"case", "size", "workers", "kernel", "gbps", "copy_gbps", "nt_copy_gbps", "memcpy_gbps", "fastest_copy", "fastest_copy_gbps", "ratio_to_fastest_copy", "ratio_to_copy", "ratio_to_nt_copy", "spread", "allocs", "reference_slowdown", "impl"} {
			if _, ok := m[k]; !ok {
				t.Errorf("key %q missing: %s", k, l)
			}
		}
		if g, _ := m["gbps"].(float64); g <= 0 {
			t.Errorf("gbps %v", m["gbps"])
		}
		f, _ := m["fastest_copy_gbps"].(float64)
		if c, _ := m["copy_gbps"].(float64); f < 0.99*c {
			t.Errorf("fastest_copy_gbps %v below copy_gbps %v", f, c)
		}
		if mc, _ := m["memcpy_gbps"].(float64); (mc > 0) != (cMemcpy != nil) {
			t.Errorf("memcpy_gbps %v with memcpy built in %v", mc, cMemcpy != nil)
		}
		if s, _ := m["spread"].(map[string]any); s == nil || s["min"] == nil || s["max"] == nil {
			t.Errorf("spread %v", m["spread"])
		}
		if m["case"] == "f32-perm3210" && m["size"] != "11x11x11x11" {
			t.Errorf("4-D size %v", m["size"])
		}
	}
	if strings.Contains(out, "Benchmark") || strings.Contains(out, "goos:") {
		t.Errorf("-json output has benchmark lines:\n%s", out)
	}
}

func TestTable(t *testing.T) {
	code, out, errOut := runArgs(t, append(tiny, "-table", "-workers", "1", "-case", "^f32-rowmajor")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "ratio to fastest") || !strings.Contains(out, "fastest copy GB/s") || !strings.Contains(out, "copy/") || strings.Contains(out, "Benchmark") {
		t.Errorf("-table stdout:\n%s", out)
	}
	if strings.Contains(errOut, "ratio to fastest") {
		t.Errorf("-table also wrote the table to stderr:\n%s", errOut)
	}
}

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "chart.svg")
	code, _, errOut := runArgs(t, append(tiny, "-workers", "1", "-case", "transpose|to-T16", "-plot", name)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	root, rects := "", 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, data)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "rect" {
				rects++
			}
		}
	}
	if root != "svg" || rects < 2*2 {
		t.Errorf("root %q, %d rects", root, rects)
	}
	if !bytes.Contains(data, []byte("f32-transpose")) {
		t.Error("the chart does not name the case")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left files behind: %v", ents)
	}
}

func TestFromTo(t *testing.T) {
	code, out, errOut := runArgs(t, "-from", "bf16[48,300]{1,0}", "-to", "bf16[48,300]{0,1:T(8,128)(2,1)}",
		"-count", "2", "-benchtime", "1ms", "-workers", "1")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	_, results := parseBench(t, out)
	if len(results) != linesPerResult() {
		t.Fatalf("%d results, want %d:\n%s", len(results), linesPerResult(), out)
	}
	for _, r := range results {
		if r.keys["case"] != "custom" || r.keys["size"] != "48x300" || r.keys["workers"] != "1" {
			t.Errorf("result %s", r.name)
		}
	}
}

func TestCaseFilter(t *testing.T) {
	code, out, errOut := runArgs(t, append(tiny, "-workers", "1", "-case", "^f32-T8x128-to-rowmajor$")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	_, results := parseBench(t, out)
	if len(results) != linesPerResult() {
		t.Fatalf("%d results, want %d", len(results), linesPerResult())
	}
	for _, r := range results {
		if r.keys["case"] != "f32-T8x128-to-rowmajor" {
			t.Errorf("unexpected %s", r.name)
		}
	}
}

// -list prints the selected cases and measures nothing.
func TestList(t *testing.T) {
	code, out, errOut := runArgs(t, "-list", "-size", "both", "-case", "^f32-transpose$")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := "f32-transpose  1024x1024  f32[1024,1024]{1,0}  f32[1024,1024]{0,1}"
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "case") || !strings.Contains(out, want) {
		t.Errorf("-list:\n%s\nwant a header and two lines, one %q", out, want)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-nosuch"},
		{"-count", "0"},
		{"-count", "many"},
		{"-size", "3y"},
		{"-size", "0x5"},
		{"-workers", "0"},
		{"-workers", "1,x"},
		{"-kernel", "sse9"},
		{"-case", "("},
		{"-case", "no-such-case"},
		{"-benchtime", "-1s"},
		{"-json", "-table"},
		{"-from", "f32[4,4]{1,0}"},
		{"-from", "f32[4,4", "-to", "f32[4,4]{0,1}"},
		{"-from", "f32[4,4]{1,0}", "-to", "f32[4,4]{0,1}", "-size", "small"},
		{"-from", "f32[4,4]{1,0}", "-to", "f32[4,4]{0,1}", "-check"},
		{"-targets", "x.json"},
		{"extra"},
	} {
		code, out, errOut := runArgs(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if out != "" {
			t.Errorf("%q: stdout %q", args, out)
		}
		if n := strings.Count(errOut, "\n"); n != 1 || !strings.HasPrefix(errOut, "relayout-bench: ") {
			t.Errorf("%q: stderr is not one line: %q", args, errOut)
		}
	}
}

func TestHelp(t *testing.T) {
	code, out, errOut := runArgs(t, "-h")
	if code != 0 || out != "" || !strings.Contains(errOut, "-benchtime") {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestProgress(t *testing.T) {
	code, _, errOut := runArgs(t, append(tiny, "-workers", "1", "-case", "^f32-transpose$", "-progress")...)
	if code != 0 || !strings.Contains(errOut, "[1/1] f32-transpose") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	// Without -progress, stderr (not a terminal here) holds only the summary.
	_, _, errOut = runArgs(t, append(tiny, "-workers", "1", "-case", "^f32-transpose$")...)
	if strings.Contains(errOut, "[1/1]") {
		t.Errorf("progress without -progress:\n%s", errOut)
	}
}

func TestParseSizes(t *testing.T) {
	for in, want := range map[string][]sizeSpec{
		"small":     {{rows: 1024, cols: 1024, a: 32}},
		"large":     {{rows: 8192, cols: 8192, a: 64}},
		"both":      {{rows: 1024, cols: 1024, a: 32}, {rows: 8192, cols: 8192, a: 64}},
		"64x256":    {{rows: 64, cols: 256, a: 11}},
		"4096":      {{rows: 4096, cols: 4096, a: 64}},
		"1024x1024": {{rows: 1024, cols: 1024, a: 32}},
		"shapes":    {{shapes: true}},
	} {
		got, err := parseSizes(in)
		if err != nil || len(got) != len(want) {
			t.Errorf("%q: %v, %v", in, got, err)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: %v, want %v", in, got, want)
			}
		}
	}
}

// The shapes set parses, and each of its cases plans a fast path, not the per-element one.
func TestShapes(t *testing.T) {
	jobs := selectJobs(nil, []sizeSpec{{shapes: true}})
	if len(jobs) != len(shapes) {
		t.Fatalf("%d jobs for %d shapes", len(jobs), len(shapes))
	}
	for _, j := range jobs {
		p, err := relayout.NewPlan(j.dst, j.src)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		if p.Kernel() == "reference" {
			t.Errorf("%s: %s", j.name, p)
		}
	}
}

func TestShrink(t *testing.T) {
	for in, want := range map[string]string{
		"f32[8192,8192]{1,0}":             "256x256",
		"f32[64,64,64,64]{3,2,1,0}":       "16x16x16x16",
		"bf16[48,300]{1,0:T(8,128)(2,1)}": "48x300",
		"s8[3,1000000]{1,0}":              "3x15625",
	} {
		s := shrink(layout.MustParse(in))
		if got := dimsName(s.Dims); got != want {
			t.Errorf("shrink(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	for p, want := range map[float64]float64{0: 1, 0.5: 2.5, 1: 4, 0.25: 1.75} {
		if got := quantile(xs, p); got != want {
			t.Errorf("quantile(%v) = %v, want %v", p, got, want)
		}
	}
	if xs[0] != 4 {
		t.Error("quantile sorted its argument")
	}
}

func TestGoCopy(t *testing.T) {
	src := make([]byte, 10007)
	fillSource(src, layout.S8)
	for w := 1; w <= 5; w++ {
		dst := make([]byte, len(src))
		goCopy(dst, src, w)
		if !bytes.Equal(dst, src) {
			t.Errorf("goCopy with %d workers differs", w)
		}
	}
}

func TestNTCopy(t *testing.T) {
	src := make([]byte, 100007)
	fillSource(src, layout.S8)
	for _, k := range simd.Available() {
		for w := 1; w <= 5; w++ {
			dst := make([]byte, len(src))
			ntCopy(k, dst, src, w)
			if !bytes.Equal(dst, src) {
				t.Errorf("ntCopy (%s) with %d workers differs", k.Name, w)
			}
		}
	}
}

func TestCPUProfile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "cpu.prof")
	code, _, errOut := runArgs(t, append(tiny, "-workers", "1", "-case", "^s8", "-cpuprofile", name)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if fi, err := os.Stat(name); err != nil || fi.Size() == 0 {
		t.Errorf("profile: %v, %v", fi, err)
	}
	code, _, errOut = runArgs(t, append(tiny, "-case", "^s8", "-cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir"))...)
	if code != 1 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("unwritable profile: exit %d, stderr %q", code, errOut)
	}
}

// Help lists every flag as --name, the tpulayout command's style; -name still works.
func TestHelpDoubleDash(t *testing.T) {
	_, _, help := runArgs(t, "--help")
	fs, _ := newFlagSet()
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(help, "\n  --"+f.Name+" ") && !strings.Contains(help, "\n  --"+f.Name+"\n") {
			t.Errorf("help does not list --%s", f.Name)
		}
	})
	if regexp.MustCompile(`(?m)^\s+-[a-z]`).MatchString(help) {
		t.Errorf("help lists a flag with one dash:\n%s", help)
	}
	_, one, _ := runArgs(t, "-list", "-case", "^f32-transpose$")
	_, two, _ := runArgs(t, "--list", "--case", "^f32-transpose$")
	if one == "" || one != two {
		t.Errorf("-list and --list differ:\n%s\n%s", one, two)
	}
}

// The flag package's errors, which name flags with one dash, are rewritten to --name.
func TestFlagErrorsDoubleDash(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-nosuch"}, "unknown flag --nosuch"},
		{[]string{"--nosuch"}, "unknown flag --nosuch"},
		{[]string{"-count", "many"}, `invalid value "many" for flag --count`},
		{[]string{"-json=maybe"}, `invalid boolean value "maybe" for --json`},
		{[]string{"--size"}, "flag --size needs an argument"},
		{[]string{"-count", "0"}, "--count 0: want at least 1"},
	} {
		code, _, errOut := runArgs(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// The table's last column is how many times faster the measured kernel is than the
// per-element reference path, and says so.
func TestTableSpeedupColumn(t *testing.T) {
	r := fakeResult("a", 1, 4, 0.6)
	r.kernel, r.ref.slowdown = "copy", 435
	var b strings.Builder
	if err := writeTable(&b, []*result{r}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "speedup vs per-element") ||
		!strings.HasSuffix(strings.TrimSpace(lines[1]), " 435x") || strings.Contains(b.String(), "slower") {
		t.Errorf("table:\n%s", b.String())
	}
}
