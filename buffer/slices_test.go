package buffer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// numberBits is an element of a Go slice as its XLA type and bits: the oracle side of
// the bulk-copy tests, written apart from sliceCodec.
func numberBits(v any) (layout.DType, uint64) {
	switch x := v.(type) {
	case float32:
		return layout.F32, uint64(math.Float32bits(x))
	case float64:
		return layout.F64, math.Float64bits(x)
	case int8:
		return layout.S8, uint64(uint8(x))
	case uint8:
		return layout.U8, uint64(x)
	case int16:
		return layout.S16, uint64(uint16(x))
	case uint16:
		return layout.U16, uint64(x)
	case int32:
		return layout.S32, uint64(uint32(x))
	case uint32:
		return layout.U32, uint64(x)
	case int64:
		return layout.S64, uint64(x)
	case uint64:
		return layout.U64, x
	}
	panic("not a Number")
}

var bulkShapes = []string{
	"f32[3,700]", "bf16[3,700]", "f64[1100]", "s8[5,300]", "u16[2,3,90]", "s32[700]", "u64[3,5]",
	"bf16[9,300]{1,0:T(8,128)(2,1)}", "f32[30,20]{0,1}", "f16[40,33]{0,1:T(8,128)}",
	"s4[9,300]{1,0:T(8,128)E(4)}", "pred[7,70]", "f8e4m3fn[600]", "s32[3,5]{1,0:L(64)}", "f32[]", "f32[0,5]",
}

// checkBulk fills buffers of every bulk shape from s (its values drawn by gen) and reads
// them back, comparing each element with ConvertElement of the element alone.
func checkBulk[T Number](t *testing.T, gen func(r *rand.Rand) T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, text := range bulkShapes {
		b := MustNew(layout.MustParse(text))
		for i := range b.Data {
			b.Data[i] = 0xa5 // padding must keep it
		}
		pad := b.Clone()
		src := make([]T, b.Len())
		for i := range src {
			src[i] = gen(r)
		}
		if err := FromSlice(b, src); err != nil {
			t.Fatalf("%s: FromSlice: %v", text, err)
		}
		idx := make([]int64, b.Rank())
		for k := range src {
			st, bits := numberBits(src[k])
			want := Widen(b.DType(), b.ElementBits(), ConvertElement(b.DType(), st, bits))
			if got := b.Bits(idx); got != want {
				t.Fatalf("%s ← %T: element %v is %#x, want %#x (from %v)", text, src[k], idx, got, want, src[k])
			}
			pad.SetBits(idx, want)
			layout.NextIndex(idx, b.Dims())
		}
		if string(pad.Data) != string(b.Data) {
			t.Fatalf("%s ← %T: FromSlice changed padding", text, src[0])
		}
		out := make([]T, b.Len())
		if err := ToSlice(out, b); err != nil {
			t.Fatalf("%s: ToSlice: %v", text, err)
		}
		idx = make([]int64, b.Rank())
		for k := range out {
			dt, got := numberBits(out[k])
			if want := ConvertElement(dt, b.DType(), b.Bits(idx)); got != want {
				t.Fatalf("%s → %T: element %v is %#x, want %#x", text, out[k], idx, got, want)
			}
			layout.NextIndex(idx, b.Dims())
		}
	}
}

func TestBulkSlices(t *testing.T) {
	f := func(r *rand.Rand) float64 {
		switch r.IntN(8) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*r.IntN(2))
		}
		return (r.Float64() - 0.5) * math.Pow(2, float64(r.IntN(80)-40))
	}
	checkBulk(t, func(r *rand.Rand) float32 { return float32(f(r)) })
	checkBulk(t, f)
	checkBulk(t, func(r *rand.Rand) int8 { return int8(r.Uint32()) })
	checkBulk(t, func(r *rand.Rand) uint8 { return uint8(r.Uint32()) })
	checkBulk(t, func(r *rand.Rand) int16 { return int16(r.Uint32()) })
	checkBulk(t, func(r *rand.Rand) uint16 { return uint16(r.Uint32()) })
	checkBulk(t, func(r *rand.Rand) int32 { return int32(r.Uint32()) })
	checkBulk(t, func(r *rand.Rand) uint32 { return r.Uint32() })
	checkBulk(t, func(r *rand.Rand) int64 { return int64(r.Uint64()) >> r.IntN(64) })
	checkBulk(t, func(r *rand.Rand) uint64 { return r.Uint64() >> r.IntN(64) })
}

func TestBulkErrors(t *testing.T) {
	b := MustNew(layout.MustParse("bf16[4,5]"))
	err := FromSlice(b, make([]float32, 19))
	if !errors.Is(err, ErrSize) {
		t.Errorf("FromSlice of 19 values into 20 elements: %v", err)
	} else if msg := err.Error(); !contains(msg, "20") || !contains(msg, "19") {
		t.Errorf("the size error does not name both sizes: %v", err)
	}
	if err := ToSlice(make([]int8, 21), b); !errors.Is(err, ErrSize) {
		t.Errorf("ToSlice of 20 elements into 21 values: %v", err)
	}
	c := MustNew(layout.MustParse("c64[3]"))
	if err := FromSlice(c, make([]float32, 3)); !errors.Is(err, ErrDType) {
		t.Errorf("FromSlice into c64: %v", err)
	}
	b.mapped = true
	if err := FromSlice(b, make([]float32, 20)); !errors.Is(err, ErrShape) {
		t.Errorf("FromSlice into a read-only mapping: %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestGonum(t *testing.T) {
	// A 3×4 view with stride 6 into a larger matrix: the gap must be neither read nor written.
	data := make([]float64, 3*6)
	for i := range data {
		data[i] = float64(i) + 0.5
	}
	g := blas64.General{Rows: 3, Cols: 4, Stride: 6, Data: data}
	b := MustNew(layout.MustParse("bf16[3,4]{0,1:T(2,128)(2,1)}"))
	if err := FromGeneral(b, g); err != nil {
		t.Fatal(err)
	}
	for i := range int64(3) {
		for j := range int64(4) {
			if got, want := b.At([]int64{i, j}), float64(6*i+j)+0.5; got != want {
				t.Errorf("element (%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
	out := blas64.General{Rows: 3, Cols: 4, Stride: 6, Data: make([]float64, 18)}
	for i := range out.Data {
		out.Data[i] = -1
	}
	if err := ToGeneral(out, b); err != nil {
		t.Fatal(err)
	}
	for k, v := range out.Data {
		want := data[k]
		if k%6 >= 4 {
			want = -1
		}
		if v != want {
			t.Errorf("ToGeneral: Data[%d] = %v, want %v", k, v, want)
		}
	}
	m, err := ToDense(b)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(m, mat.NewDense(3, 4, []float64{0.5, 1.5, 2.5, 3.5, 6.5, 7.5, 8.5, 9.5, 12.5, 13.5, 14.5, 15.5})) {
		t.Errorf("ToDense = %v", mat.Formatted(m))
	}
	c := MustNew(layout.MustParse("f32[3,4]"))
	if err := FromDense(c, m); err != nil || c.F32([]int64{2, 3}) != 15.5 {
		t.Errorf("FromDense: %v, element (2,3) = %v", err, c.F32([]int64{2, 3}))
	}
	for _, bad := range []blas64.General{
		{Rows: 4, Cols: 3, Stride: 3, Data: make([]float64, 12)}, // dims swapped
		{Rows: 3, Cols: 4, Stride: 3, Data: make([]float64, 12)}, // stride below cols
		{Rows: 3, Cols: 4, Stride: 6, Data: make([]float64, 15)}, // data too short
	} {
		if err := FromGeneral(b, bad); !errors.Is(err, ErrSize) {
			t.Errorf("FromGeneral of %d×%d stride %d, %d values: %v", bad.Rows, bad.Cols, bad.Stride, len(bad.Data), err)
		}
	}
	if _, err := ToDense(MustNew(layout.MustParse("f32[3]"))); !errors.Is(err, ErrShape) {
		t.Errorf("ToDense of a vector: %v", err)
	}
}
