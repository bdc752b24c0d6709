package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/simd"
)

// Every copy yardstick copies every byte, and only those, at every worker split,
// including sizes that are not multiples of 64 and parts smaller than a line.
func TestCopiesCopy(t *testing.T) {
	k := simd.Default()
	copies := map[string]func(dst, src []byte, w int){
		"gocopy": goCopy,
		"ntcopy": func(dst, src []byte, w int) { ntCopy(k, dst, src, w) },
	}
	if cMemcpy != nil {
		copies["memcpy"] = func(dst, src []byte, w int) { splitCopy(dst, src, w, cMemcpy) }
	} else {
		t.Log("memcpy not built in (no cgo): only Go's copies tested")
	}
	for name, cp := range copies {
		for _, n := range []int{0, 1, 63, 64, 65, 1000, 4096, 1<<20 + 17} {
			for _, w := range []int{1, 2, 3, 7} {
				t.Run(fmt.Sprintf("%s/n=%d/w=%d", name, n, w), func(t *testing.T) {
					src := make([]byte, n)
					fillSource(src, 0)
					dst := bytes.Repeat([]byte{0xA5}, n+8)
					cp(dst[:n], src, w)
					if !bytes.Equal(dst[:n], src) {
						t.Errorf("copied bytes differ from the source")
					}
					if !bytes.Equal(dst[n:], bytes.Repeat([]byte{0xA5}, 8)) {
						t.Errorf("wrote past the destination's length")
					}
				})
			}
		}
	}
}

// Built without cgo, a run says once that memcpy is missing, measures the Go copies,
// and its bandwidth lines say "memcpy not built in".
func TestNoMemcpy(t *testing.T) {
	saved := cMemcpy
	cMemcpy = nil
	t.Cleanup(func() { cMemcpy = saved })
	code, out, errOut := runArgs(t, append(tiny, "-workers", "1,2", "-case", "^f32-transpose$")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if n := strings.Count(errOut, noMemcpyLine); n != 1 {
		t.Errorf("the no-memcpy line appears %d times, want 1:\n%s", n, errOut)
	}
	if strings.Contains(out, "impl=memcpy") {
		t.Errorf("memcpy lines without memcpy:\n%s", out)
	}
	if n := strings.Count(out, "memcpy not built in"); n != 2 {
		t.Errorf("%d bandwidth lines say memcpy is not built in, want 2:\n%s", n, out)
	}
}

// The fastest copy is the least time of the three in each sample; the ratio the reports
// quote is against it, named by the copy with the highest median.
func TestFastestCopy(t *testing.T) {
	r := &result{srcBytes: 100,
		caseNs: []float64{10, 10, 10},
		copyNs: []float64{20, 5, 20},
		ntNs:   []float64{8, 9, 30},
		cNs:    []float64{9, 8, 4},
	}
	if got, want := r.fastestNs(), []float64{8, 5, 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fastestNs %v, want %v", got, want)
	}
	if got := median(r.ratios()); got != 0.5 {
		t.Errorf("median ratio to the fastest %v, want 0.5", got)
	}
	if got := r.fastestName(); got != "memcpy" {
		t.Errorf("fastestName %q, want memcpy (medians 8 ns against 9 and 20)", got)
	}
	r.cNs = nil
	if got, want := r.fastestNs(), []float64{8, 5, 20}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("without memcpy: fastestNs %v, want %v", got, want)
	}
	if got := r.fastestName(); got != "ntcopy" {
		t.Errorf("without memcpy: fastestName %q, want ntcopy", got)
	}
	least := 0.45
	lines := checkResults([]target{{Case: "a", Size: "8x8", Workers: 1, Fastest: &least, least: least}},
		[]*result{{job: job{name: "a", size: "8x8"}, workers: 1, impl: "avx2", srcBytes: 100,
			caseNs: []float64{10}, copyNs: []float64{20}, ntNs: []float64{30}, cNs: []float64{4}}})
	if len(lines) != 1 || lines[0].measured != 0.4 || lines[0].ok {
		t.Errorf("ratio_to_fastest_copy check: %+v, want 0.4 short of 0.45", lines)
	}
}
