package simd

import (
	"os"
	"sort"
	"testing"
	"time"
)

// TestPairedDRAM measures, on 64 MiB arrays (far larger than the caches),
// each implementation's large kernels against Go's copy() of the same number
// of source bytes, timing them back to back in rounds and reporting the
// median per-round ratio (robust to drift on a shared machine). It only runs
// when SIMD_PAIRED=1 is set:
//
//	SIMD_PAIRED=1 go test ./simd/ -run TestPairedDRAM -v
func TestPairedDRAM(t *testing.T) {
	if os.Getenv("SIMD_PAIRED") == "" {
		t.Skip("set SIMD_PAIRED=1 to run")
	}
	const size = 64 << 20
	src := make([]byte, size)
	dst := make([]byte, size)
	benchFill(src, true)
	benchFill(dst, false)
	type fn struct {
		name string
		f    func()
	}
	fns := []fn{{"gocopy", func() { copy(dst, src) }}}
	for _, k := range Available() {
		fns = append(fns,
			fn{k.Name + ".Copy", func() { k.Copy(dst, src) }},
			fn{k.Name + ".CopyNT", func() { k.CopyNT(dst, src) }},
			fn{k.Name + ".Interleave16", func() { k.Interleave16(dst, src[:size/2], src[size/2:], size/4) }},
			fn{k.Name + ".F32ToBF16Interleave", func() { k.F32ToBF16Interleave(dst[:size/2], src[:size/2], src[size/2:], size/8) }},
			fn{k.Name + ".F32ToBF16", func() { k.F32ToBF16(dst[:size/2], src, size/4) }},
			fn{k.Name + ".Transpose32", func() { k.Transpose32(dst, 4096*4, src, 4096*4, 4096, 4096) }},
		)
	}
	const rounds = 21
	ratios := make([][]float64, len(fns))
	for r := 0; r < rounds; r++ {
		var base time.Duration
		for i, f := range fns {
			t0 := time.Now()
			f.f()
			d := time.Since(t0)
			if i == 0 {
				base = d
			}
			ratios[i] = append(ratios[i], float64(base)/float64(d))
		}
	}
	for i, f := range fns {
		sort.Float64s(ratios[i])
		t.Logf("%-28s speed relative to copy() of the same source bytes: median %.2f (min %.2f, max %.2f)",
			f.name, ratios[i][rounds/2], ratios[i][0], ratios[i][rounds-1])
	}
}
