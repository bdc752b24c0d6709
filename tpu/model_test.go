package tpu

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestChips(t *testing.T) {
	cs := Chips()
	if len(cs) != 9 {
		t.Fatalf("%d chips", len(cs))
	}
	for _, c := range cs {
		if c.Source == "" || c.Name == "" || c.TensorCores == 0 || c.HBMBytes == 0 || c.VMEMBytes == 0 ||
			c.SMEMBytes == 0 || c.MXUSize == 0 || c.Version < 2 || !c.Target.valid() {
			t.Errorf("%s: incomplete %+v", c.Generation, c)
		}
		if want := c.Generation == TPU8i || c.Generation == TPU8t; c.Inferred != want {
			t.Errorf("%s: Inferred = %v", c.Generation, c.Inferred)
		}
		if c.Generation != TPU8t && c.Target != DefaultTarget {
			t.Errorf("%s: vreg %v, want 8×128", c.Generation, c.Target)
		}
		g, err := ParseGeneration(c.Generation.String())
		if err != nil || g != c.Generation {
			t.Errorf("ParseGeneration(%q) = %v, %v", c.Generation, g, err)
		}
		if _, err := json.Marshal(c); err != nil {
			t.Error(err)
		}
	}
	v6, _ := ChipOf(V6e)
	if v6.MXUSize != 256 || v6.VMEMBytes != 128<<20 || v6.HBMBytes != 32e9 || v6.TensorCores != 1 {
		t.Errorf("v6e: %+v", v6)
	}
	t8, _ := ChipOf(TPU8t)
	if t8.Target.Sublanes != 16 || !strings.Contains(t8.Source, "[I]") {
		t.Errorf("8t: %+v", t8)
	}
	for in, want := range map[string]Generation{"TPU v5e": V5e, "tpu-v5p": V5p, "Ironwood": TPU7x, "tpu7x": TPU7x, "trillium": V6e, "v4": V4} {
		if g, err := ParseGeneration(in); err != nil || g != want {
			t.Errorf("ParseGeneration(%q) = %v, %v; want %v", in, g, err, want)
		}
	}
	if _, err := ParseGeneration("v9z"); err == nil {
		t.Error("v9z parsed")
	} else {
		for _, g := range Generations() {
			if !strings.Contains(err.Error(), g.String()) {
				t.Errorf("the error %q does not list %s", err, g)
			}
		}
	}
	if c, _ := ChipOf(NoGeneration); c.Generation != DefaultGeneration {
		t.Errorf("ChipOf(NoGeneration) = %s", c.Generation)
	}
}

func TestDefaultLayoutTable(t *testing.T) {
	for _, c := range []struct {
		g    Generation
		s    string
		opts []Option
		want string
	}{
		{V5e, "f32[1024,1024]", nil, "{1,0:T(8,128)}"},
		{V5e, "bf16[1024,1024]", nil, "{1,0:T(8,128)(2,1)}"},
		{V6e, "bf16[1024,1024]", nil, "{1,0:T(8,128)(2,1)}"},
		{TPU7x, "bf16[1024,1024]", nil, "{1,0:T(16,128)(2,1)}"},
		{TPU7x, "bf16[1000,1024]", nil, "{1,0:T(8,128)(2,1)}"}, // 1000 % 16 != 0
		{V5e, "bf16[1024,1024]", []Option{WithFlags(TilingFlags{X16: true})}, "{1,0:T(16,128)(2,1)}"},
		{TPU7x, "bf16[1024,1024]", []Option{WithFlags(TilingFlags{})}, "{1,0:T(8,128)(2,1)}"},
		{V5e, "s8[1024,1024]", nil, "{1,0:T(8,128)(4,1)}"},
		{V5e, "s8[1024,1024]", []Option{WithFlags(TilingFlags{X8: true})}, "{1,0:T(32,128)(4,1)}"},
		{TPU7x, "s8[1024,1024]", nil, "{1,0:T(32,128)(4,1)}"},
		{V5e, "s4[1024,1024]", nil, "{1,0:T(8,128)(8,1)E(4)}"},
		{V5e, "f4e2m1fn[64,128]", nil, "{1,0:T(8,128)(8,1)E(4)}"},
		{V5e, "s4[1024,1024]", []Option{WithFlags(TilingFlags{X4: true})}, "{1,0:T(64,128)(8,1)E(4)}"},
		{V5e, "f32[1,512]", nil, "{1,0:T(1,128)}"},
		{V5e, "f32[3,512]", nil, "{1,0:T(4,128)}"},
		{V5e, "bf16[1,512]", nil, "{1,0:T(2,128)(2,1)}"},
		{V5e, "bf16[4,8192]", nil, "{1,0:T(4,128)(2,1)}"},
		{V5e, "f32[2,3,5,7]", nil, "{3,2,1,0:T(8,128)}"},
		{V5e, "f32[4096]", nil, "{0:T(1024)}"},
		{V5e, "f32[100]", nil, "{0:T(128)}"},
		{V5e, "bf16[2048]", nil, "{0:T(1024)(128)(2,1)}"},
		{V5e, "s8[8192]", nil, "{0:T(1024)(128)(4,1)}"},
		{V5e, "f32[]", nil, "{:T(128)}"},
		{V5e, "s32[]", nil, "{:T(128)}"},
		{V5e, "bf16[]", nil, "{:T(256)}"},
		{V5e, "s8[]", nil, "{:T(512)}"},
		{V5e, "pred[]", nil, "{:T(512)}"},
		{V3, "f32[]", nil, "{:T(256)}"},
		{V3, "bf16[]", nil, "{:T(512)}"},
		{V5e, "f32[5,100]", []Option{Scratch()}, "{1,0:T(1,128)}"},
		{TPU8t, "f32[64,128]", nil, "{1,0:T(16,128)}"},
		// Fact 22: scratch bf16 takes the large tile from v6e, where its rows allow.
		{V6e, "bf16[32,512]", []Option{Scratch()}, "{1,0:T(16,128)(2,1)}"},
		{V6e, "bf16[24,512]", []Option{Scratch()}, "{1,0:T(8,128)(2,1)}"},
		{V6e, "bf16[32,512]", nil, "{1,0:T(8,128)(2,1)}"},                 // a kernel argument
		{V5e, "bf16[32,512]", []Option{Scratch()}, "{1,0:T(8,128)(2,1)}"}, // gen < 6
		{TPU7x, "bf16[32,512]", nil, "{1,0:T(16,128)(2,1)}"},              // large by default from TPU7x
	} {
		s := layout.MustParse(c.s)
		l, err := DefaultLayout(c.g, s.DType, s.Dims, c.opts...)
		if err != nil || l.String() != c.want {
			t.Errorf("%s %s: %s %v, want %s", c.g, c.s, l, err, c.want)
			continue
		}
		if len(s.Dims) > 0 {
			chip, _ := ChipOf(c.g)
			if _, err := NewMemTiling(chip.Target, s.WithLayout(l)); err != nil {
				t.Errorf("%s %s: default not loadable: %v", c.g, c.s, err)
			}
		}
	}
	for _, dt := range []layout.DType{layout.F64, layout.C64, layout.S64, layout.S1, layout.Token} {
		if _, err := DefaultLayout(V5e, dt, []int64{8, 128}); err == nil {
			t.Errorf("%s: no error", dt)
		}
	}
}

func TestLoadRules(t *testing.T) {
	for _, c := range []struct{ s, rule string }{
		{"f32[8,128]{1,0}", RuleTiled},
		{"f32[8,128]{0,1:T(8,128)}", RuleRowMajor},
		{"f32[8,128]{1,0:T(8,256)}", RuleMinorTile},
		{"f32[8,128]{1,0:T(2,8,128)}", RuleFirstTile},
		{"f32[8,128]{1,0:T(16,128)}", RuleVregLayout},
		{"f32[8,128]{1,0:T(8,128)(2,1)}", RulePackingTile},
		{"bf16[8,128]{1,0:T(8,128)}", RulePackingTile},
		{"bf16[8,128]{1,0:T(8,128)(1,2)}", RulePackingTile},
		{"bf16[16,128]{1,0:T(8,128)(2,1,1,1)}", RulePackingTile},
		{"s8[8,128]{1,0:T(8,128)(2,1)}", RulePackingTile},
		{"s8[8,128]{1,0:T(2,128)(4,1)}", RuleTileRows},
		{"s4[64,128]{1,0:T(64,128)(8,1)}", RuleElementSize},
		{"f64[8,128]{1,0:T(8,128)}", RuleDType},
		{"c64[8,128]{1,0:T(8,128)}", RuleDType},
		{"bf16[2048]{0:T(1024)}", RulePackingTile},
		{"bf16[2048]{0:T(128)(128)(2,1)}", RuleTileRows},
		{"f32[2048]{0:T(100)}", RuleMinorTile},
		{"f32[8,128]{1,0:T(8,128)M(64)}", RuleNoExtraAttrs},
		{"f32[]", RuleArray},
	} {
		_, err := NewMemTiling(DefaultTarget, layout.MustParse(c.s))
		var re *RuleError
		if !errors.As(err, &re) || re.Rule != c.rule || !errors.Is(err, ErrNotLoadable) {
			t.Errorf("%s: %v, want rule %s", c.s, err, c.rule)
		} else if !strings.Contains(err.Error(), "rule "+c.rule) {
			t.Errorf("%s: message %q does not name the rule", c.s, err)
		}
	}
	for _, s := range []string{"f32[12,320]{1,0:T(8,128)}", "f32[4,256]{1,0:T(1,128)}", "bf16[4,256]{1,0:T(2,128)(2,1)}",
		"s8[64,512]{1,0:T(32,128)(4,1)}", "s4[64,128]{1,0:T(64,128)(8,1)E(4)}", "bf16[2048]{0:T(1024)(128)(2,1)}",
		"f32[8,128]{1,0:T(8,128)S(1)}", "f32[3,5]{1,0:T(8,128)L(2048)}"} {
		if _, err := NewMemTiling(DefaultTarget, layout.MustParse(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	// A 16-sublane target loads (16,128) f32 tiles.
	if _, err := NewMemTiling(Target{16, 128}, layout.MustParse("f32[16,128]{1,0:T(16,128)}")); err != nil {
		t.Error(err)
	}
}

func TestFootprint(t *testing.T) {
	f, err := FootprintOf(V5e, layout.MustParse("bf16[4,1024,4096]"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Bytes != 4*1024*4096*2 || f.PaddingBytes != 0 || f.Vregs != 8192 || f.NativeVregs != 8192 ||
		!f.FitsHBM || !f.FitsVMEM || f.TileBytes != 2048 {
		t.Errorf("%v", f)
	}
	f, err = FootprintOf(V4, layout.MustParse("f32[8192,8192]"))
	if err != nil || f.FitsVMEM || !f.FitsHBM {
		t.Errorf("%v %v", f, err)
	}
	f, err = FootprintOf(V5e, layout.MustParse("f32[1,1]"))
	if err != nil || f.Bytes != 512 || f.LogicalBytes != 4 || f.Waste < 0.99 {
		t.Errorf("%v %v", f, err)
	}
	if _, err := json.Marshal(f); err != nil {
		t.Error(err)
	}
	if _, err := FootprintOf(V5e, layout.MustParse("f32[8,128]{0,1:T(8,128)}")); !errors.Is(err, ErrNotLoadable) {
		t.Errorf("transposed: %v", err)
	}
}
