package buffer

import (
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// A stored pred byte is true when any of its bits is set (NumPy's bool view of a byte,
// and what relayout's pred conversions take), not only when bit 0 is.
func TestPredNonzeroByte(t *testing.T) {
	b := MustNew(layout.MustParse("pred[4]{0}"))
	copy(b.Data, []byte{0x00, 0x01, 0x02, 0xff})
	for i, want := range []bool{false, true, true, true} {
		if got := b.Pred([]int64{int64(i)}); got != want {
			t.Errorf("byte %#x: Pred = %v, want %v", b.Data[i], got, want)
		}
	}
}
