package layout_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

func ExampleParse() {
	s, err := layout.Parse("bf16[256, 1024]{1,0:T(8,128)(2,1)}")
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	_, err = layout.Parse("f32[2,3]{0,0}")
	fmt.Println(err)
	// Output:
	// bf16[256,1024]{1,0:T(8,128)(2,1)}
	// layout: parse "f32[2,3]{0,0}": at byte 11: minor_to_major repeats dimension 0
}

func ExampleIndexer_Offset() {
	ix, _ := layout.Compile(layout.MustParse("bf16[256,1024]{1,0:T(8,128)(2,1)}"))
	// Rows 2k and 2k+1 of a column share a 32-bit word: (3,5) is the high half of word 133.
	off := ix.Offset([]int64{3, 5})
	fmt.Println(off, ix.ByteOffset([]int64{3, 5}), ix.FootprintBytes())
	// Output: 267 534 524288
}

func ExampleIndexer_Index() {
	ix, _ := layout.Compile(layout.MustParse("f32[3,5]{1,0:T(2,2)}"))
	idx := make([]int64, 2)
	for _, off := range []int64{17, 9} {
		if ix.Index(off, idx) {
			fmt.Println(off, "holds", idx)
		} else {
			fmt.Println(off, "is padding")
		}
	}
	// Output:
	// 17 holds [2 3]
	// 9 is padding
}

func ExampleIndexer_Levels() {
	ix, _ := layout.Compile(layout.MustParse("bf16[3,5]{1,0:T(8,128)(2,1)}"))
	for _, l := range ix.Levels() {
		fmt.Println(l.Name, l.Dims)
	}
	fmt.Printf("padding %.1f%%\n", 100*ix.PaddingFraction())
	// Output:
	// physical [3 5]
	// T(8,128) [1 1 8 128]
	// T(2,1) [1 1 4 128 2 1]
	// padding 98.5%
}

func ExampleIndexer_DimOffsets() {
	ix, _ := layout.Compile(layout.MustParse("bf16[4,8]{1,0:T(2,4)(2,1)}"))
	rows, cols := ix.DimOffsets(0), ix.DimOffsets(1)
	fmt.Println(rows, cols)
	// The layout has no combined dims, so an offset is the sum of its dims' parts.
	fmt.Println(ix.Separable(), rows[3]+cols[5], ix.Offset([]int64{3, 5}))
	// Output:
	// [0 1 16 17] [0 2 4 6 8 10 12 14]
	// true 27 27
}

func ExampleIndexer_FirstTileExtent() {
	ix, _ := layout.Compile(layout.MustParse("bf16[256,1024]{0,1:T(8,128)(2,1)}"))
	rows, _ := ix.FirstTileExtent(0)
	cols, _ := ix.FirstTileExtent(1)
	fmt.Println(rows, cols, ix.IsRowMajorDense(), ix.ExpandedElements())
	// Output: 128 8 false 262144
}
