package tpu_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// Where the hardware keeps one bf16 element, in memory and in vregs.
func Example() {
	l, _ := tpu.DefaultLayout(tpu.V5e, layout.BF16, []int64{16, 256})
	s := layout.NewShape(layout.BF16, 16, 256).WithLayout(l)
	fmt.Println(s)

	m, _ := tpu.NewMemTiling(tpu.DefaultTarget, s)
	fmt.Println("memory:", m.Locate([]int64{5, 130}))
	fmt.Println("load layout", m.LoadLayout(), "→", m.LoadLayout().Place([]int64{5, 130}))
	native := tpu.NativeLayout(tpu.DefaultTarget, 16)
	fmt.Println("native layout", native, "→", native.Place([]int64{5, 130}))

	l7, _ := tpu.DefaultLayout(tpu.TPU7x, layout.BF16, []int64{16, 256})
	fmt.Println("on TPU7x:", l7)
	// Output:
	// bf16[16,256]{1,0:T(8,128)(2,1)}
	// memory: word 770.1 (tile [0 1])
	// load layout 16-bit (8,128) → vreg [0 0] sublane 6 lane 2 slot 1
	// native layout 16-bit (16,128) → vreg [0 1] sublane 2 lane 2 slot 1
	// on TPU7x: {1,0:T(16,128)(2,1)}
}

// Check an image against an f32 reference; the image forgot the (2,1) pair packing.
func ExampleCheck() {
	dims := []int64{16, 256}
	ref := buffer.MustNew(layout.NewShape(layout.F32, dims...))
	want := layout.MustParse("bf16[16,256]{1,0:T(8,128)(2,1)}")
	wrong := buffer.MustNew(layout.MustParse("bf16[16,256]{1,0:T(8,128)}"))
	idx := make([]int64, 2)
	for i := 0; ; i++ {
		ref.Set(idx, float64(i))
		wrong.Set(idx, float64(i))
		if !layout.NextIndex(idx, dims) {
			break
		}
	}
	img, _ := buffer.Wrap(want, wrong.Data)

	rep, _ := tpu.Check(img, ref, tpu.CheckOptions{MaxMismatches: 1, Diagnose: true})
	fmt.Println(rep.Mismatches, "of", rep.Elements, "elements differ")
	fmt.Println(rep.First[0])
	fmt.Println(rep.Diagnosis.Best.Arrangement, rep.Diagnosis.Best.Fraction)
	// Output:
	// 3922 of 4096 elements differ
	// element [1 0]: byte 2 (word 0.1, tile [0 0]), vreg [0 0] sublane 0 lane 0 slot 1: expected 0x4380, have 0x3f80
	// no-packing 1
}
