package algebra

import (
	"fmt"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestQuick(t *testing.T) {
	for _, s := range []string{"f32[16,256]{1,0:T(8,128)}", "bf16[16,256]{1,0:T(8,128)(2,1)}", "f32[8,256]{0,1:T(8,128)}", "f32[4,16,256]{2,1,0:T(8,128)}", "f32[16,256]{1,0:T(8,128)(3,1)}", "f32[300]{0:T(128)}", "f32[20,300]{1,0:T(8,128)}", "f32[2,4,256]{2,1,0:T(*,8,128)}", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"} {
		m, err := FromXLA(layout.MustParse(s))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := m.Canonical()
		fmt.Println(s, m.One, m.Reason, m.Extents, m.Alloc, c)
		for _, l := range m.Chain {
			fmt.Println("   ", l.Name, l.Layout)
		}
	}
}
