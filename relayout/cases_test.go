package relayout

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// benchCase is one row of the speed table, at any size.
type benchCase struct {
	name     string
	src, dst string // format strings with the two dims
	kernel   string
	four     bool // 4-D case: dims are (a, a, a, a) with a = rows
}

var benchCases = []benchCase{
	{"f32-rowmajor-to-T8x128", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0:T(8,128)}", "copy", false},
	{"f32-T8x128-to-rowmajor", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0}", "copy", false},
	{"bf16-rowmajor-to-T8x128-2x1", "bf16[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave", false},
	{"bf16-T8x128-2x1-to-rowmajor", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0}", "deinterleave", false},
	{"f32-to-bf16-T8x128-2x1", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave", false},
	{"f32-transpose", "f32[%d,%d]{1,0}", "f32[%d,%d]{0,1}", "transpose", false},
	{"f32-perm3210", "f32[%d,%d,%d,%d]{3,2,1,0}", "f32[%d,%d,%d,%d]{0,1,2,3}", "transpose", true},
	{"bf16-T8x128-2x1-to-T16x128-2x1", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(16,128)(2,1)}", "copy", false},
	{"s8-rowmajor-to-T32x128-4x1", "s8[%d,%d]{1,0}", "s8[%d,%d]{1,0:T(32,128)(4,1)}", "interleave", false},
	// The narrow types of quantized models: fp8 fused, 8-bit transposed quads, int4 tiles.
	{"f32-to-f8e4m3fn-T8x128-4x1", "f32[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "interleave", false},
	{"s8-rowmajor-to-T8x128-4x1-transposed", "s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(8,128)(4,1)}", "transpose", false},
	{"s4-rowmajor-to-T8x128-8x1", "s4[%d,%d]{1,0}", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "nibbles+interleave", false},
	{"s4-T8x128-8x1-to-rowmajor", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "s4[%d,%d]{1,0}", "deinterleave+nibbles", false},
	// The copy path: identical layouts, and a conversion between dtypes in one layout.
	{"f32-rowmajor-identical", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0}", "copy", false},
	{"f32-T8x128-identical", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0:T(8,128)}", "copy", false},
	{"f32-to-bf16-rowmajor", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0}", "copy", false},
}

func (c benchCase) shapes(rows, cols int64) (dst, src layout.Shape) {
	if c.four {
		a := min(rows, 24)
		return layout.MustParse(fmt.Sprintf(c.dst, a, a+1, a+2, a+3)), layout.MustParse(fmt.Sprintf(c.src, a, a+1, a+2, a+3))
	}
	return layout.MustParse(fmt.Sprintf(c.dst, rows, cols)), layout.MustParse(fmt.Sprintf(c.src, rows, cols))
}

// fourD is the 4-D case at a×a×a×a.
func fourD(c benchCase, a int64) (dst, src layout.Shape) {
	return layout.MustParse(fmt.Sprintf(c.dst, a, a, a, a)), layout.MustParse(fmt.Sprintf(c.src, a, a, a, a))
}
