package layout

import (
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

func TestDescribe(t *testing.T) {
	ix, err := Compile(MustParse("bf16[4,64,300]{2,0,1:T(2,*,128)L(1024)}"))
	if err != nil {
		t.Fatal(err)
	}
	d := Describe(ix)
	b := testenv.JSON(t, d)
	want := `"minor_to_major":[2,0,1],"physical_order":[1,0,2],"tiles":[[2,"*",128]],"tail_padding":1024,`
	if !strings.Contains(b, want) {
		t.Errorf("Describe JSON %s\nlacks %s", b, want)
	}
	if d.PaddingElements != d.FootprintElements-d.LogicalElements || d.LogicalElements != 4*64*300 {
		t.Errorf("counts %+v", d)
	}
	scalar, err := Compile(MustParse("f32[]"))
	if err != nil {
		t.Fatal(err)
	}
	if b := testenv.JSON(t, Describe(scalar)); !strings.Contains(b, `"dims":[],"minor_to_major":[],"physical_order":[],"tiles":[],"levels":[`) {
		t.Errorf("scalar: %s", b)
	}
}
