package relayout_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// Convert a row-major f32 array to the bf16 image a TPU holds for T(8,128)(2,1).
func ExampleNewPlan() {
	src := buffer.MustNew(layout.MustParse("f32[16,256]"))
	dst := buffer.MustNew(layout.MustParse("bf16[16,256]{1,0:T(8,128)(2,1)}"))
	for i := int64(0); i < 16; i++ {
		for j := int64(0); j < 256; j++ {
			src.SetF32([]int64{i, j}, float32(i)+float32(j)/1000)
		}
	}
	p, err := relayout.NewPlan(dst.Shape, src.Shape)
	if err != nil {
		panic(err)
	}
	if err := p.Copy(dst, src); err != nil {
		panic(err)
	}
	fmt.Println(p.Kernel())
	// The first 32-bit word pairs rows 0 and 1 of column 0; the next, rows 0 and 1 of column 1.
	for w := 0; w < 2; w++ {
		word := binary.LittleEndian.Uint32(dst.Data[4*w:])
		lo := math.Float32frombits(word << 16)
		hi := math.Float32frombits(word &^ 0xffff)
		fmt.Printf("word %d: %g %g\n", w, lo, hi)
	}
	// Output:
	// interleave
	// word 0: 0 1
	// word 1: 0.0009994507 1
}

// Which inner kernel a plan picks for some layout pairs.
func ExamplePlan_Kernel() {
	for _, c := range [][2]string{
		{"bf16[4096,4096]{1,0}", "bf16[4096,4096]{1,0:T(8,128)(2,1)}"},
		{"bf16[4096,4096]{1,0}", "bf16[4096,4096]{0,1:T(8,128)(2,1)}"},   // pairs move as 32-bit units
		{"f32[4096,4096]{1,0}", "bf16[4096,4096]{0,1:T(8,128)(2,1)}"},    // converted in a scratch block
		{"f32[4096,4096]{1,0:T(8,128)}", "f32[4096,4096]{1,0:T(6,128)}"}, // rows walked through tables
		{"bf16[4096,4096]{1,0:T(8,128)(2,1)}", "bf16[4096,4096]{0,1:T(8,128)(2,1)}"},
		{"f32[4,8,256]{2,1,0}", "f32[4,8,256]{2,1,0:T(2,*,128)}"},            // planned as T(2,1,128)
		{"f16[4096,4096]{1,0}", "bf16[4096,4096]{1,0:T(8,128)(2,1)}"},        // rows converted in scratch
		{"s4[4096,4096]{1,0:E(4)}", "s4[4096,4096]{1,0:T(64,128)(8,1)E(4)}"}, // int4 via bytes
	} {
		p, err := relayout.NewPlan(layout.MustParse(c[1]), layout.MustParse(c[0]))
		if err != nil {
			panic(err)
		}
		fmt.Println(p.Kernel())
	}
	// Output:
	// interleave
	// transpose
	// transpose
	// copy
	// deinterleave+transpose
	// copy
	// interleave
	// unpack+transpose+pack
}

// Convert a transposing device layout of a row-major array band by band, as a writer of
// a large image does: each band is a contiguous range of the image, gathered from the
// source, and the bands together equal one whole Copy.
func ExamplePlanBands() {
	src := buffer.MustNew(layout.MustParse("f32[64,512]"))
	for i := range src.Data {
		src.Data[i] = byte(i * 7)
	}
	dstShape := layout.MustParse("bf16[64,512]{0,1:T(8,128)(2,1)}")
	b, ok := relayout.PlanBands(dstShape, src.Shape, 8<<10)
	if !ok {
		panic("not banded")
	}
	if err := b.Compile(); err != nil {
		panic(err)
	}
	image := make([]byte, len(buffer.MustNew(dstShape).Data))
	err := b.Run(src, func(bd relayout.Band, p []byte) error {
		copy(image[bd.DstOff:], p)
		return nil
	})
	if err != nil {
		panic(err)
	}
	first := b.Band(0)
	fmt.Printf("%d bands along dim %d, gathered: %v\n", b.Len(), b.Dim(), b.Gather())
	fmt.Printf("band 0: rows [%d, %d), image bytes [%d, %d)\n", first.Row, first.Row+first.Rows, first.DstOff, first.DstOff+first.DstLen)

	whole := buffer.MustNew(dstShape)
	p, err := relayout.NewPlan(dstShape, src.Shape)
	if err != nil {
		panic(err)
	}
	if err := p.Copy(whole, src); err != nil {
		panic(err)
	}
	fmt.Println("equal to one Copy:", string(image) == string(whole.Data))
	// Output:
	// 8 bands along dim 1, gathered: true
	// band 0: rows [0, 64), image bytes [0, 16384)
	// equal to one Copy: true
}
