package buffer_test

import (
	"fmt"
	"log"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"gonum.org/v1/gonum/mat"
)

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
