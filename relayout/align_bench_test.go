package relayout

import (
	"fmt"
	"testing"

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
