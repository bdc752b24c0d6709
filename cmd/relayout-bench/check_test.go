package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTargets(t *testing.T, body string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "targets.json")
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// The built-in targets name suite cases at the suite's sizes, and both sizes have
// targets, so that --size small --check and --size large --check each check something.
func TestRepoTargets(t *testing.T) {
	ts, path, err := readTargets("")
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range []sizeSpec{sizeSmall, sizeLarge} {
		jobs := selectJobs(nil, []sizeSpec{sz})
		if err := targetsApply(ts, jobs, []int{1}, path); err != nil {
			t.Errorf("size %s: %v", jobs[0].size, err)
		}
	}
	sizes := map[string]bool{}
	for _, j := range selectJobs(nil, []sizeSpec{sizeSmall, sizeLarge}) {
		sizes[j.name+" "+j.size] = true
	}
	for _, tg := range ts {
		if !sizes[tg.Case+" "+tg.Size] {
			t.Errorf("target for %q at %s: no such case at that size", tg.Case, tg.Size)
		}
	}
	if len(ts) < 2*len(suite) {
		t.Errorf("%d targets for %d cases at two sizes", len(ts), len(suite))
	}
	// Every large case has the goals: one worker against the fastest copy (the
	// copy path at 0.9 of it), and 2 workers at 1.7 times one.
	for _, j := range selectJobs(nil, []sizeSpec{sizeLarge}) {
		var fastest, speedup *target
		for i, tg := range ts {
			switch {
			case tg.Case != j.name || tg.Size != j.size:
			case tg.Workers == 1 && tg.Fastest != nil:
				fastest = &ts[i]
			case tg.Workers == 2 && tg.Speedup != nil:
				speedup = &ts[i]
			}
		}
		if fastest == nil {
			t.Errorf("%s at %s: no ratio_to_fastest_copy target at 1 worker", j.name, j.size)
		} else if strings.HasSuffix(j.name, "-identical") && fastest.least < 0.9 {
			t.Errorf("%s at %s: the copy path's target is %.2f of the fastest copy, want 0.9", j.name, j.size, fastest.least)
		}
		if speedup == nil || speedup.least < 1.7 {
			t.Errorf("%s at %s: want a speedup_over_1_worker target of 1.7 at 2 workers, have %+v", j.name, j.size, speedup)
		}
	}
}

// -check with no target for what would run fails before any timing, naming the sizes
// that have targets (issue 27: -size small -check ran for minutes and then failed).
func TestCheckNoTargetFailsFirst(t *testing.T) {
	name := writeTargets(t, `{"targets": [{"case": "f32-transpose", "size": "8192x8192", "workers": 1, "ratio_to_copy": 0.5}]}`)
	code, out, errOut := runArgs(t, "-size", "small", "-workers", "1", "-count", "1", "-check", "-targets", name)
	if code != 1 || !strings.Contains(errOut, "it has targets at 8192x8192") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestLoadTargetsErrors(t *testing.T) {
	for body, want := range map[string]string{
		`{"targets": [{"case": "a", "size": "1x1", "workers": 1}]}`:                                                 "exactly one",
		`{"targets": [{"case": "a", "size": "1x1", "workers": 1, "ratio_to_copy": 1, "speedup_over_1_worker": 2}]}`: "exactly one",
		`{"targets": [{"case": "a", "size": "1x1", "workers": 1, "ratio_to_copy": 1, "ratio_to_fastest_copy": 1}]}`: "exactly one",
		`{"targets": [{"case": "a", "size": "1x1", "workers": 1, "speedup_over_1_worker": 2}]}`:                     "workers > 1",
		`{"targets": [{"case": "a", "size": "1x1", "workers": 0, "ratio_to_copy": 1}]}`:                             "workers >= 1",
		`{"targets": [{"case": "a", "workers": 1, "ratio_to_copy": 1}]}`:                                            "case and size",
		`{"targets": [{"case": "a", "size": "1x1", "workers": 1, "ratio_to_copy": 0}]}`:                             "above 0",
		`{"targets": [{"case": "a", "size": "1x1", "workers": 1, "ratio": 1}]}`:                                     "unknown field",
		`{"targets": []}`: "no targets",
		`{"targets": [`:   "unexpected EOF",
	} {
		_, err := loadTargets(writeTargets(t, body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", body, err, want)
		}
	}
	if _, err := loadTargets(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// fakeResult is a result with given medians: case GB/s and copy time ratio.
func fakeResult(name string, workers int, gbps, ratio float64) *result {
	ns := 1e9 / gbps // 1 GB source
	return &result{job: job{name: name, size: "8x8"}, workers: workers, impl: "avx2", srcBytes: 1e9,
		caseNs: []float64{ns}, copyNs: []float64{ns * ratio}, ntNs: []float64{ns * ratio}}
}

func TestCheckResults(t *testing.T) {
	one, two := 0.5, 1.5
	ts := []target{
		{Case: "a", Size: "8x8", Workers: 1, Ratio: &one, metric: "ratio to copy", least: one},
		{Case: "b", Size: "8x8", Workers: 1, Ratio: &one, metric: "ratio to copy", least: one},
		{Case: "a", Size: "8x8", Workers: 2, Speedup: &two, metric: "speedup over 1 worker", least: two},
		{Case: "b", Size: "8x8", Workers: 2, Speedup: &two, metric: "speedup over 1 worker", least: two},
		{Case: "c", Size: "8x8", Workers: 1, Ratio: &one, metric: "ratio to copy", least: one}, // not run
	}
	rs := []*result{
		fakeResult("a", 1, 4, 0.6), fakeResult("a", 2, 7, 0.6),
		fakeResult("b", 1, 4, 0.4), fakeResult("b", 2, 5, 0.4),
	}
	lines := checkResults(ts, rs)
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4: %+v", len(lines), lines)
	}
	want := []struct {
		v  float64
		ok bool
	}{{0.6, true}, {0.4, false}, {1.75, true}, {1.25, false}}
	for i, l := range lines {
		if d := l.measured - want[i].v; d > 1e-9 || d < -1e-9 || l.ok != want[i].ok {
			t.Errorf("line %d (%s %s): %v ok=%v, want %v ok=%v", i, l.t.Case, l.t.metric, l.measured, l.ok, want[i].v, want[i].ok)
		}
	}
	// The fastest copy's own speedups: a's copy went 4/0.6 → 7/0.6 GB/s, b's 4/0.4 → 5/0.4.
	for i, want := range []float64{0, 0, 1.75, 1.25} {
		if d := lines[i].copySpeedup - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("line %d (%s %s): copy's speedup %v, want %v", i, lines[i].t.Case, lines[i].t.metric, lines[i].copySpeedup, want)
		}
	}
	var b strings.Builder
	err := writeCheck(&b, lines, rs, "t.json")
	if !errors.Is(err, errShort) || !strings.Contains(err.Error(), "2 of 4") {
		t.Errorf("writeCheck: %v", err)
	}
	out := b.String()
	if strings.Count(out, "SHORT") != 2 || !strings.Contains(out, "2 of 4 checks meet") ||
		!strings.Contains(out, "copy's speedup") || !strings.Contains(out, " 1.75 ") ||
		strings.Count(out, "SHORT, copy too") != 1 || !strings.Contains(out, "1 of the short speedups") {
		t.Errorf("check table:\n%s", out)
	}
	if err := writeCheck(&b, lines[:1], rs, "t.json"); err != nil {
		t.Errorf("all met: %v", err)
	}
	if err := writeCheck(&b, nil, rs, "t.json"); err == nil || errors.Is(err, errShort) {
		t.Errorf("nothing checked: %v", err)
	}
}

// -check exits 1 exactly when a target is missed, and prints the table.
func TestCheckExit(t *testing.T) {
	for _, c := range []struct {
		least string
		code  int
		word  string
	}{{"0.0001", 0, "ok"}, {"1000", 1, "SHORT"}} {
		name := writeTargets(t, `{"targets": [{"case": "f32-transpose", "size": "64x256", "workers": 1, "ratio_to_copy": `+c.least+`}]}`)
		code, out, errOut := runArgs(t, append(tiny, "-workers", "1", "-case", "^f32-transpose$", "-table", "-check", "-targets", name)...)
		if code != c.code {
			t.Errorf("target %s: exit %d, want %d; stderr %q", c.least, code, c.code, errOut)
		}
		if !strings.Contains(out, "f32-transpose") || !strings.Contains(out, c.word) || !strings.Contains(out, "checks meet") {
			t.Errorf("target %s: stdout:\n%s", c.least, out)
		}
	}
	code, _, errOut := runArgs(t, append(tiny, "-workers", "1", "-case", "^f32-transpose$", "-check", "-targets", filepath.Join(t.TempDir(), "none.json"))...)
	if code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing targets: exit %d, stderr %q", code, errOut)
	}
}

// --check reads the targets built into the command, wherever it runs: outside the
// repository it still finds them (and fails at once here only because the run's size
// has none, naming the sizes that have).
func TestCheckBuiltInTargets(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errOut := runArgs(t, append(tiny, "--workers", "1", "--case", "^f32-transpose$", "--check")...)
	if code != 1 || out != "" || !strings.Contains(errOut, "no target of "+embeddedName) ||
		!strings.Contains(errOut, "1024x1024") {
		t.Errorf("--check outside the repository: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
