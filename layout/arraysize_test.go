package layout

import "testing"

// XLAArraySize against the sizes XLA's ShapeUtil::ArraySize gives (spec §4.6, the test
// vectors of docs/layout-semantics.md).
func TestXLAArraySize(t *testing.T) {
	for _, c := range []struct {
		shape string
		bytes int64
		ok    bool
	}{
		{"f32[3,5]{1,0:T(2,2)}", 96, true},
		{"f32[10,10]{1,0:L(3)}", 400, true}, // L(n) ignored untiled
		{"f32[3,5]{1,0:T(2,2)L(100)}", 400, true},
		{"f32[3,5]{1,0:T(2,2)(3,1)}", 96, true}, // first tile only; nested is 144
		{"bf16[3,5]{1,0:T(8,128)(2,1)}", 2048, true},
		{"f32[2,3,4]{0,1,2:T(512,1024)}", 8388608, true},
		{"s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", 28311552, true},
		{"s4[64,128]{1,0}", 8192, true},
		{"u32[]{:T(128)}", 512, true},
		{"f32[1000]{0:T(256)}", 4096, true},
		{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", 0, false},
		{"f32[10,10]{1,0:D(D,C)}", 0, false},
	} {
		got, ok := XLAArraySize(MustParse(c.shape))
		if got != c.bytes || ok != c.ok {
			t.Errorf("%s: %d, %v; want %d, %v", c.shape, got, ok, c.bytes, c.ok)
		}
	}
}
