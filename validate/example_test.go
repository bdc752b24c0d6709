package validate_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/validate"
)

// A bf16 device dump in the TPU's packed tiling, checked against its f32 reference
// (rounded to bf16 for the comparison), with one element written wrong.
func Example() {
	ref := buffer.MustNew(layout.MustParse("f32[16,128]"))
	dump := buffer.MustNew(layout.MustParse("bf16[16,128]{1,0:T(8,128)(2,1)}"))
	idx := make([]int64, 2)
	for k := 0; ; k++ {
		v := float32(k) / 7
		ref.SetF32(idx, v)
		dump.SetBF16(idx, v)
		if !layout.NextIndex(idx, ref.Dims()) {
			break
		}
	}
	dump.SetBF16([]int64{3, 5}, 1000)

	r, err := validate.Compare(dump, ref, validate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := r.First[0]
	fmt.Println(r.Summary())
	fmt.Printf("%v at byte %d: sublane %d, lane %d, slot %d; expected %s, actual %s\n",
		m.Index, m.ByteOffset, *m.Sublane, *m.Lane, *m.Slot, m.ExpectedBits, m.ActualBits)
	// Output:
	// 1 of 2048 elements differ
	// [3 5] at byte 534: sublane 1, lane 5, slot 1; expected 0x425e, actual 0x447a
}
