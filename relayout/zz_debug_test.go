package relayout

import (
	"fmt"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestZZPlans(t *testing.T) {
	for _, c := range [][2]string{
		{"f32[8192,8192]{1,0}", "f32[8192,8192]{1,0:T(8,128)}"},
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}"},
		{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}"},
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}"},
		{"f32[8192,8192]{0,1}", "f32[8192,8192]{1,0}"},
		{"f32[64,64,64,64]{0,1,2,3}", "f32[64,64,64,64]{3,2,1,0}"},
	} {
		d, _ := layout.Parse(c[0])
		s, _ := layout.Parse(c[1])
		p, err := NewPlan(d, s)
		if err != nil {
			t.Fatal(err)
		}
		k := p.kern
		fmt.Printf("%s <- %s\n  kind=%v n=%d p=%d rows=%d cols=%d unit=%d rep=%d repDst=%d repSrc=%d stream=%v\n", c[0], c[1], k.kind, k.n, k.p, k.rows, k.cols, k.unit, k.rep, k.repDst, k.repSrc, p.stream)
		fmt.Printf("  inner %+v\n  outer %+v\n", p.inner, p.outer)
	}
}
