package layout

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	ix, err := Compile(MustParse("bf16[4,64,300]{2,0,1:T(2,*,128)L(1024)}"))
	if err != nil {
		t.Fatal(err)
	}
	d := Describe(ix)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `"minor_to_major":[2,0,1],"physical_order":[1,0,2],"tiles":[[2,"*",128]],"tail_padding":1024,`
	if !strings.Contains(string(b), want) {
		t.Errorf("Describe JSON %s\nlacks %s", b, want)
	}
	if d.PaddingElements != d.FootprintElements-d.LogicalElements || d.LogicalElements != 4*64*300 {
		t.Errorf("counts %+v", d)
	}
	scalar, err := Compile(MustParse("f32[]"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(Describe(scalar)); !strings.Contains(string(b), `"dims":[],"minor_to_major":[],"physical_order":[],"tiles":[],"levels":[`) {
		t.Errorf("scalar: %s", b)
	}
}
