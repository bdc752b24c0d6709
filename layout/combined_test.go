package layout

import (
	"math/rand/v2"
	"testing"
)

func TestUncombinedExamples(t *testing.T) {
	for in, want := range map[string]string{
		"bf16[4,64,512]{2,1,0:T(2,*,128)}":     "bf16[4,64,512]{2,1,0:T(2,1,128)}",
		"bf16[4,64,64]{2,1,0:T(2,*,128)}":      "bf16[4,64,64]{2,1,0:T(2,2,64)}",
		"f32[3,5]{1,0:T(2,2)}":                 "", // no `*`
		"f32[3,5]{1,0:T(*,4)}":                 "", // 4 and 5 do not divide each other
		"bf16[4,64,64]{2,1,0:T(*,8,128)(2,1)}": "", // a further tile
	} {
		u, ok := Uncombined(MustParse(in))
		if got := u.String(); ok != (want != "") || ok && got != want {
			t.Errorf("Uncombined(%s) = %s, %v; want %q", in, got, ok, want)
		}
		if !ok && u.String() != in {
			t.Errorf("Uncombined(%s) changed the shape to %s though not ok", in, u)
		}
	}
}

// TestUncombined checks, on random layouts with `*`, that every rewritten layout has the
// footprint and every offset of the original.
func TestUncombined(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	rewritten := 0
	for range 20000 {
		s := randomShape(r)
		u, ok := Uncombined(s)
		if !ok {
			continue
		}
		ix, err1 := Compile(s)
		ux, err2 := Compile(u)
		if err1 != nil || err2 != nil {
			t.Fatalf("Compile(%s): %v; Compile(%s): %v", s, err1, u, err2)
		}
		rewritten++
		if ix.FootprintElements() != ux.FootprintElements() {
			t.Fatalf("%s: footprint %d, %s: %d", s, ix.FootprintElements(), u, ux.FootprintElements())
		}
		if ix.LogicalElements() == 0 {
			continue
		}
		idx := make([]int64, ix.Rank())
		for {
			if a, b := ix.Offset(idx), ux.Offset(idx); a != b {
				t.Fatalf("%v: %s gives %d, %s gives %d", idx, s, a, u, b)
			}
			if !NextIndex(idx, ix.Dims()) {
				break
			}
		}
	}
	if rewritten < 50 {
		t.Fatalf("only %d random layouts rewritten: the test covers too little", rewritten)
	}
}
