package relayout

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/simd"
)

// BenchmarkDstOffset times the streaming cases with the destination starting off bytes
// past a 64-byte boundary (NumPy's large arrays start 16 bytes past one), one worker,
// beside copy() of the source's bytes (impl=gocopy) into a destination as far off.
func BenchmarkDstOffset(b *testing.B) {
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
		for _, off := range []int{0, 16} {
			db := offsetBuffer(b, dst, off)
			b.Run(fmt.Sprintf("case=%s/off=%d/impl=gocopy", c.name, off), func(b *testing.B) {
				cp := offsetBytes(len(sb.Data), off)
				b.SetBytes(int64(len(sb.Data)))
				for b.Loop() {
					copy(cp, sb.Data)
				}
			})
			b.Run(fmt.Sprintf("case=%s/off=%d/impl=%s", c.name, off, simd.Default().Name), func(b *testing.B) {
				b.SetBytes(int64(len(sb.Data)))
				for b.Loop() {
					if err := p.Copy(db, sb); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

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
