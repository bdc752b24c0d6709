package simd

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkPairedDRAM times each implementation's large kernels on 64 MiB arrays (far
// larger than the caches) against Go's copy() of the same number of source bytes. Each
// iteration runs copy() (not timed) and then the kernel; copy-ratio is the median of the
// per-iteration ratios copy time / kernel time, which drifts less than either time alone
// on a shared machine (1 = as fast as copy()):
//
//	go test ./simd -run '^$' -bench PairedDRAM -benchtime 21x
func BenchmarkPairedDRAM(b *testing.B) {
	const size = 64 << 20
	src := make([]byte, size)
	dst := make([]byte, size)
	benchFill(src, true)
	benchFill(dst, false)
	for _, k := range Available() {
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"Copy", func() { k.Copy(dst, src) }},
			{"CopyNT", func() { k.CopyNT(dst, src) }},
			{"Interleave16", func() { k.one.pack2[Bits16][Bits16](dst, src[:size/2], src[size/2:], size/4) }},
			{"F32ToBF16Interleave", func() { k.one.pack2[F32][BF16](dst[:size/2], src[:size/2], src[size/2:], size/8) }},
			{"F32ToBF16", func() { k.one.conv[F32][BF16](dst[:size/2], src, size/4) }},
			{"Transpose32", func() { k.Transpose(4, Ordinary)(dst, 4096*4, src, 4096*4, 4096, 4096) }},
		} {
			b.Run("impl="+k.Name+"/kernel="+c.name, func(b *testing.B) {
				b.SetBytes(size)
				var ratios []float64
				for b.Loop() {
					b.StopTimer()
					t0 := time.Now()
					copy(dst, src)
					base := time.Since(t0)
					b.StartTimer()
					t1 := time.Now()
					c.f()
					ratios = append(ratios, float64(base)/float64(time.Since(t1)))
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "copy-ratio")
			})
		}
	}
}
