package simd

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"
)

// TestMain prints benchmark configuration lines (benchfmt "key: value") with
// the CPU features and the default implementation when benchmarks run.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		fmt.Printf("simd-features: %s\nsimd-default: %s\n", Features(), Default().Name)
	}
	os.Exit(m.Run())
}

// Benchmark sizes are source bytes (b.SetBytes reports source bytes per
// second): one in L1/L2, one in L2, one far larger than the caches.
var benchSizes = []struct {
	name  string
	bytes int
}{{"32KiB", 32 << 10}, {"1MiB", 1 << 20}, {"64MiB", 64 << 20}}

// benchFill fills b with a deterministic pattern; for f32 inputs it stores
// ordinary float values.
func benchFill(b []byte, f32 bool) {
	for i := 0; i+4 <= len(b); i += 4 {
		v := uint32(i) * 2654435761
		if f32 {
			v = math.Float32bits(float32(int32(v)) / 1e6)
		}
		le.PutUint32(b[i:], v)
	}
}

func benchCase(b *testing.B, name string, extra ...*Kernels) {
	var kc kernelCase
	for _, c := range kernelCases {
		if c.name == name {
			kc = c
		}
	}
	for _, sz := range benchSizes {
		per := 0
		for _, l := range kc.inLen {
			per += l(1)
		}
		n := sz.bytes / per
		in := make([][]byte, len(kc.inLen))
		for j, l := range kc.inLen {
			in[j] = make([]byte, l(n))
			benchFill(in[j], kc.f32In)
		}
		out := make([][]byte, len(kc.outLen))
		for j, l := range kc.outLen {
			out[j] = make([]byte, l(n))
			benchFill(out[j], false) // fault the pages in before timing
		}
		for _, k := range append(Available(), extra...) {
			b.Run("impl="+k.Name+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(per * n))
				for b.Loop() {
					kc.run(k, out, in, n)
				}
			})
		}
	}
}

// goCopy is the baseline for Copy and CopyNT: Go's built-in copy (runtime
// memmove, which itself switches to non-temporal stores from 1 MiB).
var goCopy = &Kernels{
	Name:   "gocopy",
	Copy:   func(dst, src []byte) { copy(dst, src) },
	CopyNT: func(dst, src []byte) { copy(dst, src) },
}

func BenchmarkCopy(b *testing.B)                  { benchCase(b, "Copy", goCopy) }
func BenchmarkCopyNT(b *testing.B)                { benchCase(b, "CopyNT", goCopy) }
func BenchmarkInterleave16(b *testing.B)          { benchCase(b, "Interleave16") }
func BenchmarkDeinterleave16(b *testing.B)        { benchCase(b, "Deinterleave16") }
func BenchmarkInterleave8x4(b *testing.B)         { benchCase(b, "Interleave8x4") }
func BenchmarkDeinterleave8x4(b *testing.B)       { benchCase(b, "Deinterleave8x4") }
func BenchmarkF32ToBF16(b *testing.B)             { benchCase(b, "F32ToBF16") }
func BenchmarkF32ToF16(b *testing.B)              { benchCase(b, "F32ToF16") }
func BenchmarkBF16ToF32(b *testing.B)             { benchCase(b, "BF16ToF32") }
func BenchmarkF16ToF32(b *testing.B)              { benchCase(b, "F16ToF32") }
func BenchmarkF32ToBF16Interleave(b *testing.B)   { benchCase(b, "F32ToBF16Interleave") }
func BenchmarkF32ToF16Interleave(b *testing.B)    { benchCase(b, "F32ToF16Interleave") }
func BenchmarkBF16DeinterleaveToF32(b *testing.B) { benchCase(b, "BF16DeinterleaveToF32") }

// transposeBenchSizes adds, for the transposes, square sizes whose byte
// side is a power of two: 256×256 bytes (in L2) and 4096×4096 bytes (far
// larger than L2, close to the L3 size).
var transposeBenchSizes = []struct {
	name  string
	bytes int
}{benchSizes[0], {"64KiB", 64 << 10}, benchSizes[1], {"16MiB", 16 << 20}, benchSizes[2]}

func benchTranspose(b *testing.B, w int) {
	for _, sz := range transposeBenchSizes {
		side := int(math.Sqrt(float64(sz.bytes / w)))
		src := make([]byte, side*side*w)
		dst := make([]byte, side*side*w)
		benchFill(src, false)
		benchFill(dst, false)
		for _, k := range Available() {
			b.Run(fmt.Sprintf("impl=%s/size=%s", k.Name, sz.name), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					k.transpose(w, false)(dst, side*w, src, side*w, side, side)
				}
			})
		}
	}
}

func BenchmarkTranspose32(b *testing.B) { benchTranspose(b, 4) }
func BenchmarkTranspose16(b *testing.B) { benchTranspose(b, 2) }
func BenchmarkTranspose8(b *testing.B)  { benchTranspose(b, 1) }

func BenchmarkFill(b *testing.B) {
	pat := []byte{1, 2, 3, 4}
	for _, sz := range benchSizes {
		dst := make([]byte, sz.bytes)
		benchFill(dst, false)
		for _, k := range Available() {
			b.Run("impl="+k.Name+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(len(dst)))
				for b.Loop() {
					k.Fill(dst, pat)
				}
			})
		}
	}
}

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

// BenchmarkRowsDstOffset times the batched streaming copy as an untiling does it
// (f32 T(8,128) tiles of 8 rows of 512 bytes into rows 32 KiB apart, 64 MiB), with the
// destination off bytes past a 64-byte boundary, beside copy() of the same bytes:
//
//	go test ./simd -run '^$' -bench RowsDstOffset
func BenchmarkRowsDstOffset(b *testing.B) {
	const size, row, seg = 64 << 20, 32 << 10, 512
	benchDstOffsets(b, size, true, func(k *Kernels, dst, src []byte) {
		t := 0
		for i := 0; i < size; i += 8 * row {
			for j := 0; j < row; j += seg {
				k.CopyRows(dst[i+j:], src[t:], seg, Rows{N: 8, DstStride: row, SrcStride: seg, Hints: Hints{Stream: true}})
				t += 8 * seg
			}
		}
	})
}

// BenchmarkTransposeDstOffset times the non-temporal 32-bit transpose of a 4096×4096
// matrix in 512×512 blocks (as relayout cuts it) with the destination off bytes past a
// 64-byte boundary:
//
//	go test ./simd -run '^$' -bench TransposeDstOffset
func BenchmarkTransposeDstOffset(b *testing.B) {
	const n, blk = 4096, 512
	benchDstOffsets(b, 4*n*n, false, func(k *Kernels, dst, src []byte) {
		for i := 0; i < n; i += blk {
			for j := 0; j < n; j += blk {
				k.Transpose(4, Streaming)(dst[4*(j*n+i):], 4*n, src[4*(i*n+j):], 4*n, blk, blk)
			}
		}
	})
}

// benchDstOffsets times pass, then a fence, with each vector kernel set, from a source
// of size benchFill bytes into a destination 0 and 16 bytes past a 64-byte boundary;
// with gocopy, copy() of the same bytes into an aligned destination first.
func benchDstOffsets(b *testing.B, size int, gocopy bool, pass func(k *Kernels, dst, src []byte)) {
	src := make([]byte, size)
	buf := make([]byte, size+128)
	benchFill(src, true)
	a := int(-addr64(buf) & 63)
	if gocopy {
		b.Run("impl=gocopy", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				copy(buf[:size], src)
			}
		})
	}
	for _, k := range Available()[1:] {
		for _, off := range []int{0, 16} {
			dst := buf[a+off : a+off+size]
			b.Run(fmt.Sprintf("impl=%s/off=%d", k.Name, off), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					pass(k, dst, src)
					k.Fence()
				}
			})
		}
	}
}
