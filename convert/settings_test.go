package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// A bucket URL where only local files are taken is a usage error naming it as one,
// not "no such file or directory" (issue 44.9).
func TestBucketURLNotTaken(t *testing.T) {
	dir := t.TempDir()
	npy := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[8,128]", 2))
	for _, c := range []struct {
		run   func() error
		field string
		want  string
	}{
		{func() error {
			_, err := (&Job{In: "s3://b/in.npy", Out: filepath.Join(dir, "o"), To: "tpu:v5e"}).Run()
			return err
		}, "In", "In s3://b/in.npy is a bucket URL"},
		{func() error { _, err := (&Job{In: npy, Out: "gs://b/o.bin", To: "tpu:v5e"}).Run(); return err }, "Out", "Out gs://b/o.bin is a bucket URL"},
		{func() error {
			_, err := (&Job{In: npy, Out: "gs://b/od", All: true, To: "tpu:v5e"}).Run()
			return err
		}, "Out", "Out gs://b/od is a bucket URL"},
		{func() error {
			_, err := (&Check{Dump: "s3://b/d", Layout: "f32[8,128]", Ref: npy}).Run()
			return err
		}, "Dump", "Dump s3://b/d is a bucket URL"},
		{func() error {
			_, err := (&Check{Dump: npy, Layout: "f32[8,128]", Ref: "gs://b/r.npy"}).Run()
			return err
		}, "Ref", "Ref gs://b/r.npy is a bucket URL"},
		{func() error {
			return (&Job{Out: "s3://b/x.bin"}).WriteOutput(func(ImageWriter) error { return nil })
		}, "Out", "Out s3://b/x.bin is a bucket URL"},
	} {
		var e *Error
		if err := c.run(); !errors.As(err, &e) || e.Field != c.field || e.Kind != Setting || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v; want a setting error of %s saying %q", err, c.field, c.want)
		}
	}
}

// The refusal names the sharded conversion, which takes buckets, by its field Mesh, as
// the caller words it.
func TestBucketURLNamesMesh(t *testing.T) {
	_, err := (&Job{In: "s3://b/in.npy", Out: "o.bin", To: "tpu:v5e"}).Run()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v, want an *Error", err)
	}
	flag := func(f string) string { return "--" + strings.ToLower(f) }
	if got := e.Words(flag, nil); !strings.Contains(got, "a sharded conversion, convert --mesh, and by verify") || !strings.HasPrefix(got, "--in s3://b/in.npy") {
		t.Errorf("in the caller's words: %q", got)
	}
	if got := err.Error(); !strings.Contains(got, "convert Mesh,") {
		t.Errorf("in the package's words: %q", got)
	}
}

// TestCheckPad: a Pad number the element type cannot hold exactly is a Setting error
// naming the type's range (or the value it would become), not a silent clamp,
// truncation or rounding; the values it holds pass.
func TestCheckPad(t *testing.T) {
	for _, c := range []struct {
		dt, pad string
		want    string // "" when the pad is exact
	}{
		{"u8", "300", "Pad 300 is outside u8's range 0 to 255"},
		{"s32", "1.5", "Pad 1.5 is not a whole number in s32's range -2147483648 to 2147483647"},
		{"s4", "9", "Pad 9 is outside s4's range -8 to 7"},
		{"s64", "9007199254740993", "the pad travels as a float64, which holds 9007199254740992"},
		{"bf16", "0.1", "Pad 0.1 is not exact in bf16, which would hold 0.10009765625"},
		{"f8e4m3fn", "-inf", "Pad -inf: f8e4m3fn has no -Inf"},
		{"c64", "1", "Pad 1: c64 padding can only be zero or leave"},
		{"u8", "255", ""}, {"s4", "-8", ""}, {"bf16", "0.10009765625", ""}, {"f32", "-0", ""}, {"f32", "leave", ""}, {"f32", "", ""},
	} {
		dt, _ := layout.DTypeByName(c.dt)
		err := CheckPad(c.pad, dt)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s Pad %q: %v", c.dt, c.pad, err)
			}
			continue
		}
		if KindOf(err) != Setting || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s Pad %q: %v, want a usage error with %q", c.dt, c.pad, err, c.want)
		}
	}
	for pad, want := range map[string]string{"abc": `bad Pad "abc": want zero, leave or a number`, "1e400": "Pad 1e400 is outside float64's range"} {
		if _, err := PadOption(pad); err == nil || KindOf(err) != Setting || !strings.Contains(err.Error(), want) {
			t.Errorf("PadOption(%q): %v", pad, err)
		}
	}
}

// TestCheckPadValue: a pad given as a float64 is judged as the same number given as
// text, where the text is exactly that float64.
func TestCheckPadValue(t *testing.T) {
	for _, dt := range []layout.DType{layout.S8, layout.U8, layout.S64, layout.Pred, layout.BF16, layout.F16, layout.F32, layout.F64, layout.C64} {
		for _, text := range []string{"1", "-1", "1.5", "0.5", "300", "-129", "255", "256", "-0", "65504", "65520", "1048576", "-2.5",
			"9223372036854775808", "NaN", "+Inf", "-Inf"} {
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				t.Fatal(err)
			}
			want, got := CheckPad(text, dt), CheckPadValue(v, dt)
			if (want == nil) != (got == nil) || want != nil && want.Error() != got.Error() {
				t.Errorf("%s %s: CheckPad %v, CheckPadValue %v", dt, text, want, got)
			}
		}
	}
	if err := CheckPadValue(0.1, layout.F64); err != nil { // 0.1 as text is not a float64; as a float64 it is one
		t.Errorf("0.1 in f64: %v", err)
	}
}

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
