package sharding

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

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
			got = ErrorText(err, nil)
		}
		if got != want {
			t.Errorf("Pad %q: got %q, want %q", pad, got, want)
		}
	}
}
