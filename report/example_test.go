package report_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
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
