package report_test

import (
	"fmt"
	"os"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

func Example() {
	sh, _ := layout.Parse("f32[3,5]{1,0:T(2,4)}")
	ix, _ := layout.Compile(sh)
	ex, _ := report.ExplainOffset(ix, 14)
	fmt.Println(ex.Padding, ex.Reason)
	ex, _ = report.ExplainIndex(ix, []int64{2, 4})
	fmt.Println(ex.Offset, ex.ByteOffset)
	// Output:
	// true tile T(2,4) rounds dim 1 of the physical shape [3,5] up from 5 to 8; this offset is at position 6 of it
	// 24 96
}

// A block that Pallas refuses: the report says why, where the grid's last blocks are
// partial, and the nearest blocks that would do.
func ExampleBlock_WriteText() {
	b, err := report.CheckBlock(tpu.V5e, layout.MustParse("bf16[1000,300]"), []int64{100, 200}, 2)
	if err != nil {
		panic(err)
	}
	b.WriteText(os.Stdout)
	// Output:
	// array:            bf16[1000,300] on v5e
	// block:            [100,200]
	// legal:            no: the last block dim must be a multiple of 128 or the array's 300; 200 is neither
	//                   no: the second-to-last block dim must be a multiple of 8 or the array's 1000; 100 is neither
	// native tile:      (16,128): not aligned, vregs are partly filled
	// one block:        53248 bytes (52 KiB) as bf16[100,200]{1,0:T(8,128)(2,1)}
	// double-buffered:  1 operand: 106496 bytes (104 KiB), 0.08% of 128 MiB VMEM: fits
	//                   2 operands: 212992 bytes (208 KiB), 0.16% of 128 MiB VMEM: fits
	// grid:             (10,2) = 20 steps; dim 1's last block holds 100 of 200
	// nearest legal:    104,256  96,256  112,256
}

func ExampleWriteSparseText() {
	d, err := layout.DescribeSparse(layout.MustParse("f32[10,10]{1,0:D(D,C)*(u32)}"))
	if err != nil {
		panic(err)
	}
	report.WriteSparseText(os.Stdout, d)
	// Output:
	// shape:             f32[10,10]{1,0:D(D,C)*(u32)}
	// layout:            sparse array: dim 0 dense; dim 1 compressed; level pointers stored as u32
	// dim level types:   D(D,C), dims in order; physical order 0,1 major to minor
	// logical elements:  100 (dense count)
	// footprint:         depends on the number of stored elements (at most 100), which the shape does not say
	// note:              sparse layouts are not supported by convert, show or explain
}
