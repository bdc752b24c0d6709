package report

import (
	"errors"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// TestInfoTarget: info's --to tpu:GEN gives the generation's default layout, and
// settings that cannot be are SettingErrors naming the setting.
func TestInfoTarget(t *testing.T) {
	ix, err := layout.Compile(layout.NewShape(layout.BF16, 256, 1024))
	if err != nil {
		t.Fatal(err)
	}
	got, g, err := InfoTarget(ix, "tpu:v5e", "")
	want, _ := tpu.DefaultShape(tpu.V5e, layout.BF16, []int64{256, 1024})
	if err != nil || g != tpu.V5e || got.Shape().String() != want.String() {
		t.Errorf("tpu:v5e: %v %v %v, want %s", got, g, err, want)
	}
	if same, g, err := InfoTarget(ix, "", ""); err != nil || same != ix || g != tpu.DefaultGeneration {
		t.Errorf("no --to: %v %v %v", same, g, err)
	}
	for _, c := range [][3]string{
		{"", "v99", "Gen"}, {"v5e", "", "To"}, {"tpu:v99", "", "To"}, {"tpu:v4", "v5e", "To"},
	} {
		_, _, err := InfoTarget(ix, c[0], c[1])
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != c[2] {
			t.Errorf("--to %q --gen %q: %v, want a SettingError of %s", c[0], c[1], err, c[2])
		}
	}
}
