package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/relayout"
)

// streamingFrom takes the smallest size from which streaming won at every larger one.
func TestStreamingFrom(t *testing.T) {
	for _, c := range []struct {
		wins []bool
		want int64
	}{
		{[]bool{false, false, true, true}, 3},
		{[]bool{true, false, true, true}, 3},
		{[]bool{true, true, true, true}, 1},
		{[]bool{true, true, true, false}, 8},
	} {
		var cs []tuneChoice
		for i, w := range c.wins {
			cs = append(cs, tuneChoice{bytes: int64(i + 1), streamWins: w})
		}
		if got := streamingFrom(cs); got != c.want {
			t.Errorf("%v: %d, want %d", c.wins, got, c.want)
		}
	}
}

// TestTune runs the calibration on small sizes and reads back the file it wrote.
func TestTune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wisdom.json")
	sizes := []int64{1 << 17, 1 << 19}
	var log bytes.Buffer
	if err := tune(path, sizes, settings{count: 1, benchtime: time.Millisecond}, &log); err != nil {
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
