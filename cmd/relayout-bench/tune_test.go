package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/simd"
)

// winsFrom takes the smallest size from which a way won at every larger one: at sizes 1
// to 4, the way won (W) or lost (-).
func TestWinsFrom(t *testing.T) {
	for pattern, want := range map[string]int64{"--WW": 3, "W-WW": 3, "WWWW": 1, "WWW-": 8} {
		var sizes []int64
		var wins []bool
		for i, c := range pattern {
			sizes, wins = append(sizes, int64(i+1)), append(wins, c == 'W')
		}
		if got := winsFrom(sizes, wins); got != want {
			t.Errorf("%s: %d, want %d", pattern, got, want)
		}
	}
}

// TestTune runs the calibration on small sizes and reads back the file it wrote.
func TestTune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wisdom.json")
	sc := tuneScale{stores: []int64{1 << 17, 1 << 19}, workers: []int64{128, 256}, transpose: []int64{128, 256}, units: 256, split: 256, strings: 256}
	var log bytes.Buffer
	if err := tune(path, sc, settings{count: 1, benchtime: time.Millisecond}, &log); err != nil {
		t.Fatal(err)
	}
	w, err := relayout.ReadWisdom(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains([]int64{1 << 17, 1 << 19, 1 << 20}, w.StreamingBytes) || w.CPU == "" {
		t.Errorf("wisdom %+v; want streaming from a measured size or twice the largest", w)
	}
	if !slices.Contains(tuneBlocks, w.BlockBytes) || w.Version != relayout.WisdomVersion {
		t.Errorf("wisdom %+v; want a block size of %v, version %d", w, tuneBlocks, relayout.WisdomVersion)
	}
	// A second worker from a measured size or twice the largest: half that a worker.
	if !slices.Contains([]int64{1 << 16, 1 << 18, 1 << 19}, w.WorkerBytes) {
		t.Errorf("wisdom %+v; want a worker for each half of a measured size, or of twice the largest", w)
	}
	if !slices.Contains(tuneUnits, w.UnitsPerWorker) || !slices.Contains(tuneSplits, w.SplitBytes) {
		t.Errorf("wisdom %+v; want units a worker of %v and a unit size of %v", w, tuneUnits, tuneSplits)
	}
	if !slices.Contains([]int64{1 << 16, 1 << 18, 1 << 19}, w.TransposeStreamingBytes) {
		t.Errorf("wisdom %+v; want transposes streaming from a measured size or twice the largest", w)
	}
	// The string copy's choice where the kernel set has one to make, none elsewhere.
	if k := simd.Default(); (w.StringCopy != nil) != (k.WithStringCopy(true) != k.WithStringCopy(false)) {
		t.Errorf("wisdom %+v with the %s kernels: string copy %v", w, k.Name, w.StringCopy)
	}
	for _, what := range []string{"1 worker", "2 workers", "units a worker", "transpose, 256 KiB a side", "string copy"} {
		if !strings.Contains(log.String(), what) {
			t.Errorf("log %q does not report %q", log.String(), what)
		}
	}
	if !strings.Contains(log.String(), "wrote "+path) {
		t.Errorf("log %q does not name the file", log.String())
	}
	if code, _, errOut := runArgs(t, "-tune", path, "-case", "f32"); code != exitUsage || !strings.Contains(errOut, "--case does not apply") {
		t.Errorf("-tune with -case: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runArgs(t, "-stores", "fast"); code != exitUsage || !strings.Contains(errOut, `--stores "fast"`) {
		t.Errorf("-stores fast: exit %d, %q", code, errOut)
	}
}
