package relayout

import (
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestStagedRun checks that staged edge runs take the whole run where the source
// allows (the kernel's reads past the data are overwritten by padding) and stay exact,
// down to the last block, whose whole run would read past the source.
func TestStagedRun(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	for _, c := range [][2]string{
		{"f32[37,200]{1,0}", "f32[37,200]{1,0:T(8,128)}"},
		{"bf16[40,200]{1,0}", "bf16[40,200]{1,0:T(8,128)(2,1)}"},
		{"bf16[41,72]{1,0}", "bf16[41,72]{1,0:T(8,128)(2,1)}"},
		{"f32[16,3,100]{2,1,0}", "bf16[16,3,100]{2,1,0:T(4,128)(2,1)}"},
		{"bf16[63,250]{1,0:T(8,128)(2,1)}", "bf16[63,250]{1,0:T(16,128)(2,1)}"},
	} {
		pc := pairCase{src: layout.MustParse(c[0]), dst: layout.MustParse(c[1]), stream: true}
		for _, k := range implementations() {
			checkPair(t, r, pc, k.Name)
		}
	}
	p := mustPlan(t, "f32[16,200]{1,0:T(8,128)}", "f32[16,200]{1,0}")
	src := make([]byte, 16*200*4)
	if got := p.stagedRun(src, 128, 72, 128, 8); got != 128 {
		t.Errorf("first tile row's edge: stagedRun = %d, want the whole run 128", got)
	}
	if got := p.stagedRun(src, 8*200+128, 72, 128, 8); got != 72 {
		t.Errorf("last tile row's edge: stagedRun = %d, want the data 72", got)
	}
}
