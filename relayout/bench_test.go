package relayout

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// benchCase is one row of the speed table, at any size.
type benchCase struct {
	name     string
	src, dst string // format strings with the two dims
	kernel   string
	four     bool                         // 4-D case: dims are (a, a, a, a) with a = rows
	dims     func(rows, cols int64) []any // the format's arguments, when set
}

// xlaInt4 is the layout XLA gives an int4 weight, at the benchmark's sizes (a million
// elements or more) as relayout-bench's suite has it, s4[8,32768,1,256] at 8192×8192;
// at the tests' sizes its tiled dim is 8/3 of rows, so that 24×384 is whole tiles and
// the other sizes pad them.
const xlaInt4 = "s4[%d,%d,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}"

func xlaInt4Dims(rows, cols int64) []any {
	if rows*cols >= 1<<20 {
		return []any{8, rows * cols / 2048}
	}
	return []any{2, max(rows*8/3, 1)}
}

var benchCases = []benchCase{
	{"f32-rowmajor-to-T8x128", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0:T(8,128)}", "copy", false, nil},
	{"f32-T8x128-to-rowmajor", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0}", "copy", false, nil},
	{"bf16-rowmajor-to-T8x128-2x1", "bf16[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave", false, nil},
	{"bf16-T8x128-2x1-to-rowmajor", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0}", "deinterleave", false, nil},
	{"f32-to-bf16-T8x128-2x1", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave", false, nil},
	{"f32-transpose", "f32[%d,%d]{1,0}", "f32[%d,%d]{0,1}", "transpose", false, nil},
	{"f32-perm3210", "f32[%d,%d,%d,%d]{3,2,1,0}", "f32[%d,%d,%d,%d]{0,1,2,3}", "transpose", true, nil},
	{"bf16-T8x128-2x1-to-T16x128-2x1", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(16,128)(2,1)}", "copy", false, nil},
	{"s8-rowmajor-to-T32x128-4x1", "s8[%d,%d]{1,0}", "s8[%d,%d]{1,0:T(32,128)(4,1)}", "interleave", false, nil},
	// The narrow types of quantized models: fp8 fused, 8-bit transposed quads, int4 tiles.
	{"f32-to-f8e4m3fn-T8x128-4x1", "f32[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "interleave", false, nil},
	{"s8-rowmajor-to-T8x128-4x1-transposed", "s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(8,128)(4,1)}", "transpose", false, nil},
	{"s4-rowmajor-to-T8x128-8x1", "s4[%d,%d]{1,0}", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "nibbles+interleave", false, nil},
	{"s4-T8x128-8x1-to-rowmajor", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "s4[%d,%d]{1,0}", "deinterleave+nibbles", false, nil},
	{"s4-rowmajor-to-xla-T64x128-8x1", "s4[%d,%d,1,256]{3,2,1,0}", xlaInt4, "nibbles+interleave", false, xlaInt4Dims},
	{"s4-xla-T64x128-8x1-to-rowmajor", xlaInt4, "s4[%d,%d,1,256]{3,2,1,0}", "deinterleave+nibbles", false, xlaInt4Dims},
	// The copy path: identical layouts, and a conversion between dtypes in one layout.
	{"f32-rowmajor-identical", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0}", "copy", false, nil},
	{"f32-T8x128-identical", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0:T(8,128)}", "copy", false, nil},
	{"f32-to-bf16-rowmajor", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0}", "copy", false, nil},
}

func (c benchCase) shapes(rows, cols int64) (dst, src layout.Shape) {
	if c.dims != nil {
		return layout.MustParse(fmt.Sprintf(c.dst, c.dims(rows, cols)...)), layout.MustParse(fmt.Sprintf(c.src, c.dims(rows, cols)...))
	}
	if c.four {
		a := min(rows, 24)
		return layout.MustParse(fmt.Sprintf(c.dst, a, a+1, a+2, a+3)), layout.MustParse(fmt.Sprintf(c.src, a, a+1, a+2, a+3))
	}
	return layout.MustParse(fmt.Sprintf(c.dst, rows, cols)), layout.MustParse(fmt.Sprintf(c.src, rows, cols))
}

// fourD is the 4-D case at a×a×a×a.
func fourD(c benchCase, a int64) (dst, src layout.Shape) {
	return layout.MustParse(fmt.Sprintf(c.dst, a, a, a, a)), layout.MustParse(fmt.Sprintf(c.src, a, a, a, a))
}

// benchSize reads the square size from TPULAYOUT_BENCH_SIZE (default 8192, the issue's).
func benchSize() int64 {
	if s := os.Getenv("TPULAYOUT_BENCH_SIZE"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 8192
}

// BenchmarkCopy times each case of the table beside Go's copy() of the source's
// bytes (impl=gocopy), so `benchstat -col /impl` gives the ratio. MB/s counts source bytes.
func BenchmarkCopy(b *testing.B) {
	n := benchSize()
	for _, c := range benchCases {
		rows, cols := n, n
		if c.four {
			rows = 64
		}
		dst, src := c.shapes(rows, cols)
		if c.four {
			dst, src = fourD(c, rows)
		}
		sb := buffer.MustNew(src)
		db := buffer.MustNew(dst)
		for i := range sb.Data {
			sb.Data[i] = byte(i * 7)
		}
		size := fmt.Sprint(dst.Dims[0], "x", dst.Dims[len(dst.Dims)-1])
		b.Run(fmt.Sprintf("case=%s/size=%s/impl=gocopy", c.name, size), func(b *testing.B) {
			cp := make([]byte, len(sb.Data))
			b.SetBytes(int64(len(sb.Data)))
			for b.Loop() {
				copy(cp, sb.Data)
			}
		})
		for _, k := range simd.Available() {
			p, err := NewPlan(dst, src, WithWorkers(1), WithKernel(k.Name))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("case=%s/size=%s/impl=%s", c.name, size, k.Name), func(b *testing.B) {
				b.SetBytes(int64(len(sb.Data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := p.Copy(db, sb); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSmall times cache-resident 256×256 conversions with a reused plan, beside
// copy() of the source bytes: per-call overhead dominates here.
func BenchmarkSmall(b *testing.B) {
	for _, c := range []struct{ name, src, dst string }{
		{"bf16-rowmajor-to-T8x128-2x1", "bf16[256,256]{1,0}", "bf16[256,256]{1,0:T(8,128)(2,1)}"},
		{"f32-to-bf16-T8x128-2x1", "f32[256,256]{1,0}", "bf16[256,256]{1,0:T(8,128)(2,1)}"},
	} {
		src, dst := buffer.MustNew(layout.MustParse(c.src)), buffer.MustNew(layout.MustParse(c.dst))
		for i := range src.Data {
			src.Data[i] = byte(i * 13)
		}
		b.Run("case="+c.name+"/impl=gocopy", func(b *testing.B) {
			cp := make([]byte, len(src.Data))
			b.SetBytes(int64(len(src.Data)))
			for b.Loop() {
				copy(cp, src.Data)
			}
		})
		p, err := NewPlan(dst.Shape, src.Shape, WithWorkers(1))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("case="+c.name+"/impl="+p.k().Name, func(b *testing.B) {
			b.SetBytes(int64(len(src.Data)))
			for b.Loop() {
				_ = p.Copy(dst, src)
			}
		})
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
