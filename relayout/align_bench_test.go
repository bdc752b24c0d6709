package relayout

import (
	"slices"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/simd"
)

func benchCaseNamed(tb testing.TB, name string) benchCase {
	for _, c := range benchCases {
		if c.name == name {
			return c
		}
	}
	tb.Fatalf("no bench case %q", name)
	return benchCase{}
}

// BenchmarkPairedDstOffset runs, per iteration, copy() of the source's bytes and the case
// into an aligned destination and into one 16 bytes past a line, and reports the medians
// of copy's time over each (1 = as fast as copy()), which drift less than the times on
// a shared machine.
func BenchmarkPairedDstOffset(b *testing.B) {
	n := benchSize()
	for _, name := range []string{"f32-T8x128-to-rowmajor", "bf16-T8x128-2x1-to-rowmajor", "f32-rowmajor-to-T8x128", "bf16-rowmajor-to-T8x128-2x1", "f32-transpose"} {
		c := benchCaseNamed(b, name)
		dst, src := c.shapes(n, n)
		sb := buffer.MustNew(src)
		for i := range sb.Data {
			sb.Data[i] = byte(i * 7)
		}
		p, err := NewPlan(dst, src, WithWorkers(1), WithKernel(simd.Default().Name))
		if err != nil {
			b.Fatal(err)
		}
		d0, d16 := offsetBuffer(b, dst, 0), offsetBuffer(b, dst, 16)
		cp := make([]byte, len(sb.Data))
		b.Run("case="+c.name+"/impl="+simd.Default().Name, func(b *testing.B) {
			var r0, r16 []float64
			timed := func(f func()) float64 {
				t := time.Now()
				f()
				return float64(time.Since(t))
			}
			for b.Loop() {
				tc := timed(func() { copy(cp, sb.Data) })
				t0 := timed(func() { p.Copy(d0, sb) })
				t16 := timed(func() { p.Copy(d16, sb) })
				r0, r16 = append(r0, tc/t0), append(r16, tc/t16)
			}
			slices.Sort(r0)
			slices.Sort(r16)
			b.ReportMetric(r0[len(r0)/2], "copy-ratio-aligned")
			b.ReportMetric(r16[len(r16)/2], "copy-ratio-off16")
		})
	}
}
