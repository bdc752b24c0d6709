package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
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
