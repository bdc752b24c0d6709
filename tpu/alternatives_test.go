package tpu

import (
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestAlternatives(t *testing.T) {
	alts, err := Alternatives(V5e, layout.BF16, []int64{512, 3, 2048})
	if err != nil {
		t.Fatal(err)
	}
	// The default puts the 3 rows second-minor: T(4,128)(2,1) pads them to 4.
	var def Alternative
	for _, a := range alts {
		if a.Default {
			def = a
		}
	}
	if def.Shape.String() != "bf16[512,3,2048]{2,1,0:T(4,128)(2,1)}" || def.Bytes != 512*4*2048*2 {
		t.Errorf("default %s, %d bytes", def.Shape, def.Bytes)
	}
	// Moving dim 1 majormost removes all padding; v5e's tiling for that order comes first.
	best := alts[0]
	if best.Bytes != 512*3*2048*2 || best.Expansion != 1 || best.Shape.String() != "bf16[512,3,2048]{2,0,1:T(8,128)(2,1)}" {
		t.Errorf("cheapest %s, %d bytes, %.3fx", best.Shape, best.Bytes, best.Expansion)
	}
	for i, a := range alts {
		rowMajor := slices.Equal(a.Shape.Layout.MinorToMajor, layout.RowMajor(3))
		if _, err := NewMemTiling(DefaultTarget, a.Shape); rowMajor && err != nil {
			t.Errorf("%s is not loadable: %v", a.Shape, err)
		}
		if i > 0 && a.Bytes < alts[i-1].Bytes {
			t.Errorf("not sorted at %d", i)
		}
	}
	// f32 on v3 starts at 2 rows; rank 1 varies the 1-D tile.
	alts, err = Alternatives(V3, layout.F32, []int64{1, 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alts {
		if len(a.Shape.Layout.Tiles) > 0 && a.TileRows < 2 {
			t.Errorf("v3 f32 tile rows %d in %s", a.TileRows, a.Shape)
		}
	}
	alts, err = Alternatives(V5e, layout.BF16, []int64{1000})
	if err != nil || alts[0].Shape.String() != "bf16[1000]{0:T(1024)(128)(2,1)}" || alts[0].TileRows != 1024 || alts[1].TileRows != 512 {
		t.Errorf("rank 1: %v, %v", alts, err)
	}
	if _, err := Alternatives(V5e, layout.F64, []int64{8}); err == nil {
		t.Error("f64 has no TPU layout")
	}
}
