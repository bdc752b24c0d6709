package buffer_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"gonum.org/v1/gonum/mat"
)

func ExampleNew() {
	b, err := buffer.New(layout.MustParse("bf16[3,5]{1,0:T(2,2)}"))
	if err != nil {
		log.Fatal(err)
	}
	b.SetBF16([]int64{2, 4}, 1.5)
	fmt.Println(len(b.Data), "bytes, padding included")
	fmt.Println("element offset of [2,4]:", b.Offset([]int64{2, 4}))
	fmt.Println(b.BF16([]int64{2, 4}), b.At([]int64{2, 4}))
	// Output:
	// 48 bytes, padding included
	// element offset of [2,4]: 20
	// 1.5 1.5
}

func ExampleCompare() {
	ref := buffer.MustNew(layout.MustParse("f32[2,2]"))
	got := buffer.MustNew(layout.MustParse("bf16[2,2]{0,1}"))
	for i, v := range []float32{1, 1.001, 3.14159, -2} {
		idx := []int64{int64(i / 2), int64(i % 2)}
		ref.SetF32(idx, v)
		got.SetBF16(idx, v)
	}
	got.SetBF16([]int64{1, 1}, -2.5)
	r, err := buffer.Compare(ref, got, buffer.CompareOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("compared in %v: %d identical, %d mismatch\n", r.In, r.Identical, r.Mismatches)
	fmt.Println(r.First[0])
	// Output:
	// compared in bf16: 3 identical, 1 mismatch
	// [1 1]: expected -2 (0xc0000000), actual -2.5 (0xc020)
}

// A numpy float64 array becomes bf16 with one rounding (not through f32), and an int8
// one becomes f32.
func ExampleConverter() {
	f64, err := buffer.NewConverter(layout.BF16, 16, layout.F64, 64)
	if err != nil {
		log.Fatal(err)
	}
	le := binary.LittleEndian
	src := make([]byte, 8*3)
	for i, v := range []float64{1, 1.00390625 + 0x1p-40, 1e300} { // 1 + 2^-8 is halfway
		le.PutUint64(src[8*i:], math.Float64bits(v))
	}
	dst := make([]byte, 2*3)
	f64.Convert(dst, src, 3)
	fmt.Printf("%#04x %#04x %#04x\n", le.Uint16(dst), le.Uint16(dst[2:]), le.Uint16(dst[4:]))

	s8, err := buffer.NewConverter(layout.F32, 32, layout.S8, 8)
	if err != nil {
		log.Fatal(err)
	}
	out := make([]byte, 4*2)
	s8.Convert(out, []byte{0x80, 0x7f}, 2)
	fmt.Println(math.Float32frombits(le.Uint32(out)), math.Float32frombits(le.Uint32(out[4:])))
	// Output:
	// 0x3f80 0x3f81 0x7f80
	// -128 127
}

func ExampleFromSlice() {
	// Six f32 values into a bf16 buffer (rounded to nearest even), and back.
	b := buffer.MustNew(layout.MustParse("bf16[2,3]"))
	if err := buffer.FromSlice(b, []float32{1, 2.5, 3.14159, -0.1, 1e-3, 65504}); err != nil {
		log.Fatal(err)
	}
	out := make([]float32, b.Len())
	if err := buffer.ToSlice(out, b); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)
	// A slice of the wrong length is an error that names both sizes.
	fmt.Println(buffer.FromSlice(b, []float32{1, 2}))
	// Output:
	// [1 2.5 3.140625 -0.100097656 0.0009994507 65536]
	// buffer: size mismatch: bf16[2,3]{1,0} has 6 elements, the source has 2
}

func ExampleToDense() {
	// A gonum matrix to a tiled f32 buffer and back.
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	b := buffer.MustNew(layout.MustParse("f32[2,3]{1,0:T(8,128)}"))
	if err := buffer.FromDense(b, m); err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.F32([]int64{1, 2}), len(b.Data), "bytes")
	back, err := buffer.ToDense(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mat.Equal(m, back))
	// Output:
	// 6 4096 bytes
	// true
}

func ExampleFromSlice_bits() {
	// bf16 bit patterns, as a []uint16 holds them, go through a u16 view of the bytes.
	b := buffer.MustNew(layout.MustParse("bf16[2,2]{1,0:T(2,2)}"))
	bits, err := buffer.Wrap(b.Shape.WithDType(layout.U16), b.Data)
	if err != nil {
		log.Fatal(err)
	}
	if err := buffer.FromSlice(bits, []uint16{0x3f80, 0x4000, 0xbf80, 0x7fc0}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.BF16([]int64{0, 1}), b.BF16([]int64{1, 0}), b.BF16([]int64{1, 1}))
	// Output: 2 -1 NaN
}
