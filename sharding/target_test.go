package sharding

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/errtext"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// TestConvertHLOTarget: To hlo:MODULE:param=N, which the CLI's convert --mesh took
// alone before, gives each fixture the same directory as the layout that parameter
// has, written alone.
func TestConvertHLOTarget(t *testing.T) {
	for _, c := range readFixtures(t) {
		t.Run(c.Name, func(t *testing.T) {
			_, _, dst := c.parse(t)
			tmp := t.TempDir()
			module := filepath.Join(tmp, "module.txt")
			text := "HloModule m\n\nENTRY main {\n  ROOT p0 = " + c.Layout + " parameter(0)\n}\n"
			if err := os.WriteFile(module, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			o := ConvertOptions{Checkpoint: filepath.Join(fixtureDir, c.Name+".safetensors"),
				Mesh: c.Mesh, Devices: c.Devices, Spec: c.Spec, All: true, Pad: "leave"}
			viaHLO, alone := o, o
			viaHLO.Out, viaHLO.To = filepath.Join(tmp, "hlo"), "hlo:"+module+":param=0"
			alone.Out, alone.To = filepath.Join(tmp, "alone"), layoutAlone(dst)
			alone.DType = dst.DType.String()
			got, err := Convert(viaHLO)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Convert(alone)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Manifest.Tensors, want.Manifest.Tensors) {
				t.Errorf("tensors %+v, want %+v", got.Manifest.Tensors, want.Manifest.Tensors)
			}
			// The manifests differ in To alone; the images are the same.
			for _, dir := range []string{viaHLO.Out, alone.Out} {
				if err := os.Remove(filepath.Join(dir, manifest.FileName)); err != nil {
					t.Fatal(err)
				}
			}
			sameTree(t, viaHLO.Out, alone.Out)
		})
	}
}

// TestConvertPad: Pad is convert's Pad, checked against each tensor's image type,
// its errors naming the field Pad.
func TestConvertPad(t *testing.T) {
	c := readFixtures(t)[0] // bf16
	for pad, want := range map[string]string{
		"zero": "", "leave": "", "-2.5": "",
		"0.1":  `tensor "x": Pad 0.1 is not exact in bf16, which would hold 0.10009765625`,
		"nope": `bad Pad "nope": want zero, leave or a number`,
	} {
		_, err := Convert(ConvertOptions{Checkpoint: filepath.Join(fixtureDir, c.Name+".safetensors"),
			Out: filepath.Join(t.TempDir(), "out"), Mesh: c.Mesh, Spec: c.Spec, All: true, To: "tpu:v5e", Pad: pad})
		got := ""
		if err != nil {
			got = errMsg(err)
		}
		if got != want {
			t.Errorf("Pad %q: got %q, want %q", pad, got, want)
		}
	}
}

// TestResolveTargetAsConvert checks that ResolveTarget, which Python's shard uses,
// gives convert.Job.Target's layouts and errors (the CLI's) for every form of To a
// shard takes, hlo: shapes and HLO lines among them.
func TestResolveTargetAsConvert(t *testing.T) {
	shards := []layout.Shape{
		layout.NewShape(layout.F32, 256, 512),
		layout.NewShape(layout.BF16, 8, 128),
		layout.NewShape(layout.S8, 3, 5),
		layout.NewShape(layout.S32, 7),
	}
	for i := range shards {
		shards[i].Layout.MinorToMajor = layout.RowMajor(shards[i].Rank())
	}
	tos := []string{"tpu:v5e", "tpu:v4", "tpu:v99", "tpu:", "{1,0:T(8,128)(2,1)}", "{1,0:T(8,128)", "{0:T(128)}",
		"{1,0:T(8,128)(2,1)} ", "bf16", "f32", "f32[256,512]{0,1}", "f32[256,512", "bf16[8,128]{1,0:T(8,128)(2,1)}",
		"f32[3,5]", "u4", "nonsense", "{2,1,0}", "{1,0:T(3,0)}", "hlo:no-such-module.txt:param=0",
		"p = f32[256,512]{0,1} parameter(0)", "(f32[256,512]{1,0}, s8[3,5]{1,0}) {1}"}
	for _, sh := range shards {
		for _, to := range tos {
			for _, dtype := range []string{"", "bf16", "f32", "f99", "token"} {
				for _, floatOnly := range []bool{false, true} {
					want, werr := (&convert.Job{To: to, DType: dtype}).Target(sh, convert.Raw, floatOnly)
					got, gerr := ResolveTarget(to, dtype, sh, floatOnly)
					switch {
					case (werr == nil) != (gerr == nil):
						t.Errorf("%s To %q DType %q: convert %v, ResolveTarget %v", sh, to, dtype, werr, gerr)
					case werr != nil && errtext.Text(werr, nil) != errtext.Text(gerr, nil):
						t.Errorf("%s To %q DType %q:\nconvert       %s\nResolveTarget %s", sh, to, dtype, errtext.Text(werr, nil), errtext.Text(gerr, nil))
					case werr == nil && want.String() != got.String():
						t.Errorf("%s To %q DType %q: convert %s, ResolveTarget %s", sh, to, dtype, want, got)
					}
				}
			}
		}
	}
}
