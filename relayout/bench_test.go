package relayout

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

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
