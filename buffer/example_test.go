package buffer_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
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

func ExampleReadNPY() {
	b, err := buffer.ReadNPY(filepath.Join("..", "testdata", "npy", "f32_f.npy"))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	fmt.Println(b.Shape) // Fortran order: the {0,1} layout, no copy
	fmt.Println(b.F32([]int64{0, 1}), b.F32([]int64{2, 0}))
	// Output:
	// f32[3,4]{0,1}
	// -1.75 1.75
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
