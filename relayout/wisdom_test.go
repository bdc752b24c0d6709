package relayout

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// TestStores checks that every way of storing gives the reference's bytes: the issue's
// cases and random pairs, each with stores chosen from the sizes, streamed and cached,
// for every SIMD implementation; and that the plans store as they were told.
func TestStores(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	cases := suitePairs(r, [][2]int64{{24, 384}, {130, 129}}, sized(60, 15, 5))
	for _, c := range cases {
		for _, s := range []Stores{StoresAuto, StoresStream, StoresCache} {
			v := c
			v.stream = false
			v.opts = append(append([]Option(nil), c.opts...), WithStores(s))
			for _, k := range implementations() {
				checkPair(t, r, v, k.Name)
			}
			p, err := NewPlan(v.dst, v.src, v.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := p.exec.(*loopNest); ok && kindOf(p) != "elementwise" && s != StoresAuto && p.stream != (s == StoresStream) {
				t.Errorf("%s, stores %s: streams %v", p, s, p.stream)
			}
		}
	}
	if _, err := ParseStores("fast"); err == nil || !strings.Contains(err.Error(), `"fast"`) {
		t.Errorf("ParseStores(fast): %v, want an error naming it", err)
	}
	if _, err := NewPlan(cases[0].dst, cases[0].src, WithStores(7)); err == nil {
		t.Error("WithStores(7): no error")
	}
}

// TestWisdom round-trips a wisdom file, checks that its streaming size is the one plans
// use (and the bytes unchanged), and that bad files are errors naming the file.
func TestWisdom(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wisdom.json")
	if err := WriteWisdom(path, &Wisdom{CPU: "test", StreamingBytes: 4096}); err != nil {
		t.Fatal(err)
	}
	w, err := ReadWisdom(path)
	if err != nil || w.CPU != "test" || w.StreamingBytes != 4096 {
		t.Fatalf("ReadWisdom: %+v, %v", w, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want the wisdom alone", len(ents))
	}
	c := pairCase{dst: layout.MustParse("f32[64,256]{1,0:T(8,128)}"), src: layout.MustParse("f32[64,256]{1,0}")}
	r := rand.New(rand.NewPCG(93, 94))
	restore := SetWisdom(w)
	p, err := NewPlan(c.dst, c.src)
	if err != nil {
		t.Fatal(err)
	}
	if !p.stream {
		t.Errorf("%s: 128 KiB with wisdom of 4 KiB does not stream", p)
	}
	checkPair(t, r, c, "generic")
	restore()
	if p, _ := NewPlan(c.dst, c.src); p.stream {
		t.Errorf("%s: streams without the wisdom", p)
	}
	for name, body := range map[string]string{
		"bad.json":      `{"streaming_bytes": "big"}`,
		"negative.json": `{"streaming_bytes": -1}`,
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadWisdom(f); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("ReadWisdom(%s): %v, want an error naming the file", name, err)
		}
	}
	if _, err := ReadWisdom(filepath.Join(dir, "none.json")); err == nil {
		t.Error("ReadWisdom of a missing file: no error")
	}
}

// TestWisdomBlockBytes: a version 1 file (streaming only) still reads and leaves the
// block size to the cache; a version 2 file's block size is the plans' default, and
// WithBlockBytes still overrides it; bad sizes and newer versions are errors.
func TestWisdomBlockBytes(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1.json")
	if err := os.WriteFile(v1, []byte(`{"cpu": "old", "streaming_bytes": 4096}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := ReadWisdom(v1)
	if err != nil || w.StreamingBytes != 4096 || w.BlockBytes != 0 {
		t.Fatalf("version 1: %+v, %v", w, err)
	}
	c := pairCase{dst: layout.MustParse("f32[256,128]{0,1}"), src: layout.MustParse("f32[256,128]{1,0}")}
	restore := SetWisdom(w)
	if p, err := NewPlan(c.dst, c.src); err != nil || p.opts.blockBytes != cacheBlockBytes() {
		t.Errorf("version 1: block %d, want the cache's %d (%v)", p.opts.blockBytes, cacheBlockBytes(), err)
	}
	restore()

	v2 := filepath.Join(dir, "v2.json")
	if err := WriteWisdom(v2, &Wisdom{CPU: "test", BlockBytes: 4096}); err != nil {
		t.Fatal(err)
	}
	if w, err = ReadWisdom(v2); err != nil || w.Version != WisdomVersion || w.BlockBytes != 4096 {
		t.Fatalf("version 2: %+v, %v", w, err)
	}
	restore = SetWisdom(w)
	defer restore()
	if p, err := NewPlan(c.dst, c.src); err != nil || p.opts.blockBytes != 4096 {
		t.Errorf("wisdom of 4 KiB blocks: plan's block %d (%v)", p.opts.blockBytes, err)
	}
	if p, err := NewPlan(c.dst, c.src, WithBlockBytes(1024)); err != nil || p.opts.blockBytes != 1024 {
		t.Errorf("WithBlockBytes(1024) over the wisdom: %d (%v)", p.opts.blockBytes, err)
	}
	checkPair(t, rand.New(rand.NewPCG(95, 96)), c, "generic")

	for name, body := range map[string]string{
		"odd.json":    `{"block_bytes": 3000}`,
		"small.json":  `{"block_bytes": 128}`,
		"future.json": `{"version": 5, "streaming_bytes": 4096}`,
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadWisdom(f); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("ReadWisdom(%s): %v, want an error naming the file", name, err)
		}
	}
}

// TestWisdomSplit round-trips a version 3 file, whose worker split and transpose
// streaming threshold are the ones plans then use: how many workers a copy takes, how
// many units a plan cuts, whether a plain transpose streams; a version 2 file leaves
// them at their defaults.
func TestWisdomSplit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v3.json")
	want := Wisdom{CPU: "test", StreamingBytes: 1 << 40, BlockBytes: 4096, WorkerBytes: 96 << 20, SplitBytes: 5 << 20, UnitsPerWorker: 3, TransposeStreamingBytes: 128 << 10}
	if err := WriteWisdom(path, &want); err != nil {
		t.Fatal(err)
	}
	w, err := ReadWisdom(path)
	if want.Version = WisdomVersion; err != nil || *w != want {
		t.Fatalf("ReadWisdom: %+v, %v; want %+v", w, err, want)
	}
	defer SetWisdom(w)()
	// 512 MiB moved: 5 workers of 96 MiB; 3 units a worker, none under 5 MiB.
	big := [2]layout.Shape{layout.MustParse("f32[8192,8192]{1,0}"), layout.MustParse("f32[8192,8192]{1,0}")}
	for _, c := range []struct {
		workers int
		units   int64
	}{{1, 1}, {2, 6}, {4, 12}, {8, 15}} {
		p, err := NewPlan(big[0], big[1], WithWorkers(c.workers))
		if err != nil {
			t.Fatal(err)
		}
		// The cut divides the rows exactly: from the units wanted to twice as many.
		if p.opts.split != (workSplit{96 << 20, 5 << 20, 3}) || p.unitsWanted() != c.units || p.chunks < c.units || p.chunks > 2*c.units {
			t.Errorf("%s on %d workers: split %+v, %d units wanted, %d cut; want the wisdom's, %d wanted", p, c.workers, p.opts.split, p.unitsWanted(), p.chunks, c.units)
		}
	}
	// 128 MiB moved: one worker, one unit, whatever the workers asked for.
	p, err := NewPlan(layout.MustParse("f32[4096,4096]{1,0}"), layout.MustParse("f32[4096,4096]{1,0}"), WithWorkers(8))
	if err != nil || p.chunks != 1 || p.opts.split.workersFor(8, p.SrcBytes()+p.DstBytes(), 1<<20) != 1 {
		t.Errorf("128 MiB with workers of 96 MiB: %d units (%v), want one worker", p.chunks, err)
	}
	// A plain transpose of 256 KiB streams from the wisdom's 128 KiB, not the default 4 MiB.
	tr := pairCase{dst: layout.MustParse("f32[256,256]{0,1}"), src: layout.MustParse("f32[256,256]{1,0}")}
	if p, err := NewPlan(tr.dst, tr.src); err != nil || !p.stream {
		t.Errorf("%s: does not stream with transpose streaming from 128 KiB (%v)", p, err)
	}
	checkPair(t, rand.New(rand.NewPCG(97, 98)), tr, "generic")

	v2 := filepath.Join(dir, "v2.json")
	if err := os.WriteFile(v2, []byte(`{"version": 2, "cpu": "old", "block_bytes": 4096}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err = ReadWisdom(v2); err != nil || w.WorkerBytes != 0 || w.SplitBytes != 0 || w.UnitsPerWorker != 0 || w.TransposeStreamingBytes != 0 {
		t.Fatalf("version 2: %+v, %v", w, err)
	}
	SetWisdom(w)
	if p, err := NewPlan(tr.dst, tr.src); err != nil || p.stream || p.opts.split != (workSplit{workerBytes, splitBytes, unitsPerWorker}) {
		t.Errorf("%s with a version 2 wisdom: split %+v, stream %v; want the defaults (%v)", p, p.opts.split, p.stream, err)
	}
	for name, body := range map[string]string{
		"workers.json":   `{"version": 3, "worker_bytes": 100}`,
		"split.json":     `{"version": 3, "split_bytes": -4096}`,
		"units.json":     `{"version": 3, "units_per_worker": 65}`,
		"transpose.json": `{"version": 3, "transpose_streaming_bytes": -1}`,
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadWisdom(f); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("ReadWisdom(%s): %v, want an error naming the file", name, err)
		}
	}
}

// TestWisdomStringCopy round-trips a version 4 file's string copy choice (true and
// false both written, absent in older versions), and checks that plans of long
// streamed runs (identical layouts, a bitcast) take the kernel set the wisdom names
// and give the reference's bytes with the string copy on, off and by the CPU rule,
// on one worker and two, into aligned and unaligned destinations.
func TestWisdomStringCopy(t *testing.T) {
	dir := t.TempDir()
	for _, on := range []bool{true, false} {
		path := filepath.Join(dir, fmt.Sprintf("v4-%v.json", on))
		if err := WriteWisdom(path, &Wisdom{CPU: "test", StringCopy: &on}); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), fmt.Sprintf(`"string_copy": %v`, on)) {
			t.Errorf("wisdom file %q (%v) does not hold string_copy %v", b, err, on)
		}
		w, err := ReadWisdom(path)
		if err != nil || w.Version != WisdomVersion || w.StringCopy == nil || *w.StringCopy != on {
			t.Fatalf("ReadWisdom(%s): %+v, %v", path, w, err)
		}
	}
	for v, body := range []string{
		`{"cpu": "old", "streaming_bytes": 4096}`,
		`{"version": 2, "cpu": "old", "block_bytes": 4096}`,
		`{"version": 3, "cpu": "old", "transpose_streaming_bytes": 4096}`,
	} {
		path := filepath.Join(dir, fmt.Sprintf("v%d.json", v+1))
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if w, err := ReadWisdom(path); err != nil || w.StringCopy != nil {
			t.Errorf("version %d: %+v, %v; want no string copy choice", v+1, w, err)
		}
	}
	// Runs of 4 L2 caches: each of two workers' part at least the L2, from which the
	// vector sets stream a CopyRows row (the non-temporal threshold).
	rows := 4 * l2Bytes() / (128 * 4)
	var cases []pairCase
	for _, c := range [][2]string{
		{"f32[%d,128]{1,0}", "f32[%d,128]{1,0}"},
		{"f32[%d,128]{1,0:T(8,128)}", "f32[%d,128]{1,0:T(8,128)}"},
		{"f32[%d,128]{1,0:T(8,128)}", "f32[%d,128]{1,0}"}, // a bitcast
	} {
		cases = append(cases, pairCase{dst: layout.MustParse(fmt.Sprintf(c[0], rows)), src: layout.MustParse(fmt.Sprintf(c[1], rows))})
	}
	r := rand.New(rand.NewPCG(99, 100))
	for _, choice := range []*bool{nil, new(false), new(true)} {
		restore := SetWisdom(&Wisdom{StringCopy: choice})
		for _, c := range cases {
			for _, k := range splitImplementations() {
				want := k
				if choice != nil {
					want = k.WithStringCopy(*choice)
				}
				for w, off := range map[int]int{1: 0, 2: 16} {
					v := c
					v.opts = []Option{WithWorkers(w), WithStores(StoresStream)}
					p := planFor(t, v, k.Name)
					if p.k() != want || kindOf(p) != "copy" || !p.stream {
						t.Errorf("%s (%s, wisdom %v): kernels %s with string copy %v, %s kernel, stream %v; want %s with %v, a streamed copy",
							p, k.Name, choice, p.k().Name, p.k().StringCopy(), kindOf(p), p.stream, want.Name, want.StringCopy())
					}
					checkPairAt(t, r, v, k.Name, off)
				}
			}
		}
		restore()
	}
	if p, err := NewPlan(cases[0].dst, cases[0].src); err != nil || p.k() != simd.Default() {
		t.Errorf("without the wisdom: kernels %p, want the default %p (%v)", p.k(), simd.Default(), err)
	}
}
