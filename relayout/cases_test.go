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
	four     bool                         // 4-D case: dims are (a, a, a, a) with a = rows
	dims     func(rows, cols int64) []any // the format's arguments, when set
}

// xlaInt4 is the layout XLA gives an int4 weight, at the benchmark's sizes (a million
// elements or more) as relayout-bench's suite has it, s4[8,32768,1,256] at 8192×8192;
// at the tests' sizes its tiled dim is 8/3 of rows, so that 24×384 is whole tiles and
// the other sizes pad them.
const xlaInt4 = "s4[%d,%d,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}"

func xlaInt4Dims(rows, cols int64) []any {
	if rows*cols >= 1<<20 {
		return []any{8, rows * cols / 2048}
	}
	return []any{2, max(rows*8/3, 1)}
}

var benchCases = []benchCase{
	{"f32-rowmajor-to-T8x128", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0:T(8,128)}", "copy", false, nil},
	{"f32-T8x128-to-rowmajor", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0}", "copy", false, nil},
	{"bf16-rowmajor-to-T8x128-2x1", "bf16[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave", false, nil},
	{"bf16-T8x128-2x1-to-rowmajor", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0}", "deinterleave", false, nil},
	{"f32-to-bf16-T8x128-2x1", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave", false, nil},
	{"f32-transpose", "f32[%d,%d]{1,0}", "f32[%d,%d]{0,1}", "transpose", false, nil},
	{"f32-perm3210", "f32[%d,%d,%d,%d]{3,2,1,0}", "f32[%d,%d,%d,%d]{0,1,2,3}", "transpose", true, nil},
	{"bf16-T8x128-2x1-to-T16x128-2x1", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(16,128)(2,1)}", "copy", false, nil},
	{"s8-rowmajor-to-T32x128-4x1", "s8[%d,%d]{1,0}", "s8[%d,%d]{1,0:T(32,128)(4,1)}", "interleave", false, nil},
	// The narrow types of quantized models: fp8 fused, 8-bit transposed quads, int4 tiles.
	{"f32-to-f8e4m3fn-T8x128-4x1", "f32[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "interleave", false, nil},
	{"s8-rowmajor-to-T8x128-4x1-transposed", "s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(8,128)(4,1)}", "transpose", false, nil},
	{"s4-rowmajor-to-T8x128-8x1", "s4[%d,%d]{1,0}", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "nibbles+interleave", false, nil},
	{"s4-T8x128-8x1-to-rowmajor", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "s4[%d,%d]{1,0}", "deinterleave+nibbles", false, nil},
	{"s4-rowmajor-to-xla-T64x128-8x1", "s4[%d,%d,1,256]{3,2,1,0}", xlaInt4, "nibbles+interleave", false, xlaInt4Dims},
	{"s4-xla-T64x128-8x1-to-rowmajor", xlaInt4, "s4[%d,%d,1,256]{3,2,1,0}", "deinterleave+nibbles", false, xlaInt4Dims},
	// The copy path: identical layouts, and a conversion between dtypes in one layout.
	{"f32-rowmajor-identical", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0}", "copy", false, nil},
	{"f32-T8x128-identical", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0:T(8,128)}", "copy", false, nil},
	{"f32-to-bf16-rowmajor", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0}", "copy", false, nil},
}

func (c benchCase) shapes(rows, cols int64) (dst, src layout.Shape) {
	if c.dims != nil {
		return layout.MustParse(fmt.Sprintf(c.dst, c.dims(rows, cols)...)), layout.MustParse(fmt.Sprintf(c.src, c.dims(rows, cols)...))
	}
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
