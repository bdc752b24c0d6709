package relayout

import (
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// Tiling reads each source row from end to end in one kernel call: the repeat walks the
// row's tiles (source stride one run), and the loop outside it the tile's rows.
func TestGroupStreamsTilingWholeRows(t *testing.T) {
	for _, c := range []struct{ dst, src string }{
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}"},
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}"},
		{"s8[8192,8192]{1,0:T(32,128)(4,1)}", "s8[8192,8192]{1,0}"},
		{"f32[1000,1000]{1,0:T(8,128)}", "f32[1000,1000]{1,0}"}, // ragged: 8 tiles, the last cut
	} {
		p := mustPlan(t, c.dst, c.src, WithWorkers(1))
		k := baseOf(p)
		cols := layout.MustParse(c.src).Dims[1]
		if k.repSrc != k.n || k.n*k.rep < cols {
			t.Errorf("%s: a call reads %d runs of %d elements at source stride %d; want the whole %d-element row (stride %d)", c.dst, k.rep, k.n, k.repSrc, cols, k.n)
		}
	}
}

// Untiling walks the source in order and leaves the destination rows of a pass as they
// are when there are no more than 16 of them.
func TestGroupStreamsUntilingUngrouped(t *testing.T) {
	p := mustPlan(t, "f32[8192,8192]{1,0}", "f32[8192,8192]{1,0:T(8,128)}", WithWorkers(1))
	if k := baseOf(p); k.rep != 8 || k.repDst != 8192 {
		t.Errorf("untiling repeats %d runs at destination stride %d; want the tile's 8 rows at 8192", k.rep, k.repDst)
	}
}
