package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// TestTarget: each form of To gives Out's shape for a source; a host Out takes only
// row-major shapes.
func TestTarget(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "m.txt")
	os.WriteFile(module, []byte(`HloModule m, entry_computation_layout={(bf16[20,300]{1,0:T(8,128)(2,1)})->bf16[20,300]{1,0:T(8,128)(2,1)}}

ENTRY %main (p: bf16[20,300]) -> bf16[20,300] {
  ROOT %p = bf16[20,300]{1,0:T(8,128)(2,1)} parameter(0)
}
`), 0o644)
	src := layout.MustParse("f32[20,300]")
	for _, c := range []struct {
		to, dtype string
		out       Format
		floatOnly bool
		want      string // the shape, or the error's text
	}{
		{"bf16[20,300]{1,0:T(8,128)(2,1)}", "", Raw, false, "bf16[20,300]{1,0:T(8,128)(2,1)}"},
		{"{0,1:T(8,128)}", "", Raw, false, "f32[20,300]{0,1:T(8,128)}"},
		{"{1,0:T(8,128)(2,1)}", "bf16", Raw, false, "bf16[20,300]{1,0:T(8,128)(2,1)}"},
		{"tpu:v5e", "bf16", Raw, false, "bf16[20,300]{1,0:T(8,128)(2,1)}"},
		{"hlo:" + module + ":param=0", "", Raw, false, "bf16[20,300]{1,0:T(8,128)(2,1)}"},
		{"bf16", "", NPY, false, "bf16[20,300]{1,0}"},
		{"", "", Safetensors, false, "f32[20,300]{1,0}"},
		{"", "", Raw, false, "missing To: the layout of the device image Out"},
		{"tpu:v5e", "", NPY, false, "Out is a .npy file, which holds a row-major host array, but To tpu:v5e is a device layout"},
		{"{1,0,2}", "", Raw, false, "To layout {1,0,2} does not fit In's f32[20,300]"},
		{"f32[20,301]", "", Raw, false, "To f32[20,301] has dims [20,301], but In f32[20,300]{1,0} has dims [20,300]"},
		{"tpu:v5e", "nope", Raw, false, `unknown DType "nope"`},
	} {
		j := &Job{To: c.to, DType: c.dtype}
		dst, err := j.Target(src, c.out, c.floatOnly)
		got := dst.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("To %q DType %q into %s: %s, want %s", c.to, c.dtype, c.out, got, c.want)
		}
	}
	// With floatOnly (All), DType converts floating-point tensors only.
	if dst, err := (&Job{To: "tpu:v5e", DType: "bf16"}).Target(layout.MustParse("s8[64,130]"), Raw, true); err != nil || dst.DType != layout.S8 {
		t.Errorf("an s8 tensor with DType bf16 under All: %v, %v", dst, err)
	}
}

// TestTargetGenerationAlone: To naming a TPU generation without "tpu:" suggests the
// tpu:GEN form, for every generation and its other names, in the shape error's words.
func TestTargetGenerationAlone(t *testing.T) {
	src := layout.MustParse("f32[20,300]")
	cases := map[string]string{"trillium": "tpu:v6e", "ironwood": "tpu:7x", "TPU-v5e": "tpu:v5e"}
	for _, g := range tpu.Generations() {
		cases[g.String()] = "tpu:" + g.String()
	}
	for to, want := range cases {
		_, err := (&Job{To: to}).Target(src, Raw, false)
		if err == nil || !strings.Contains(err.Error(), "(did you mean "+want+"?") || !strings.Contains(err.Error(), "bad shape") {
			t.Errorf("To %q: %v, want the shape error and a suggestion of %s", to, err, want)
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("To %q: %#v, want an *Error", to, err)
		}
	}
	if _, err := (&Job{To: "f33"}).Target(src, Raw, false); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("To f33: %v, want an error without a generation's suggestion", err)
	}
}
