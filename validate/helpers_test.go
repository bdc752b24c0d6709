package validate

import (
	"math"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// refF32 returns an f32 reference of dims whose values are sin(k)*100 in row-major order.
func refF32(t testing.TB, dims ...int64) *buffer.Buffer {
	t.Helper()
	ref := buffer.MustNew(layout.NewShape(layout.F32, dims...))
	idx := make([]int64, len(dims))
	for k := 0; ; k++ {
		ref.Set(idx, math.Sin(float64(k))*100)
		if !layout.NextIndex(idx, dims) {
			return ref
		}
	}
}

// converted returns ref converted to the type and layout of shape the way convert does.
func converted(t testing.TB, ref *buffer.Buffer, shape string) *buffer.Buffer {
	t.Helper()
	out := buffer.MustNew(layout.MustParse(shape))
	idx := make([]int64, ref.Rank())
	for {
		out.SetBits(idx, buffer.ConvertElement(out.DType(), ref.DType(), ref.Bits(idx)))
		if !layout.NextIndex(idx, ref.Dims()) {
			return out
		}
	}
}

func mustCompare(t testing.TB, dump, ref *buffer.Buffer, opts Options) *Report {
	t.Helper()
	r, err := Compare(dump, ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
