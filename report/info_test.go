package report

import (
	"errors"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// TestRowBlocksNote: a layout whose row blocks were not worked out is noted with the
// reason of layout's RowBlocksError.
func TestRowBlocksNote(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&layout.RowBlocksError{Reason: "the layout combines dims"}, "row blocks not analysed: the layout combines dims"},
		{errors.New("other"), "other"},
	} {
		if got := rowBlocksNote(c.err); got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}

// TestNoTPU: an array with no TPU layout is noted with the reason of tpu's typed error.
func TestNoTPU(t *testing.T) {
	_, err := tpu.Alternatives(tpu.V5e, layout.C64, []int64{8, 128})
	if got, want := noTPU(err), "c64 (64 bits) has no TPU vreg layout: elements must be 2, 4, 8, 16 or 32 bits"; got != want {
		t.Errorf("c64: %q, want %q", got, want)
	}
	if got := noTPU(errors.New("other")); got != "other" {
		t.Errorf("other: %q", got)
	}
}

// TestInfoTarget: info's --to tpu:GEN gives the generation's default layout, and
// settings that cannot be are SettingErrors naming the setting.
func TestInfoTarget(t *testing.T) {
	ix := testfiles.Compile(t, "bf16[256,1024]")
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

// TestInfoTargetNoDefault: a dtype with no default layout is a *DefaultLayoutError
// naming the generation and the array, unwrapping to tpu's cause, which a caller
// words its own way.
func TestInfoTargetNoDefault(t *testing.T) {
	ix := testfiles.Compile(t, "c64[8,128]")
	_, _, err := InfoTarget(ix, "tpu:v5e", "")
	var de *DefaultLayoutError
	if !errors.As(err, &de) || !de.NoDefault || de.Gen != tpu.V5e || de.Shape.String() != "c64[8,128]{1,0}" || errors.Unwrap(err) == nil {
		t.Fatalf("c64: %#v, want a DefaultLayoutError of v5e for c64[8,128]", err)
	}
	if got, want := de.Words(nil, func(error) string { return "CAUSE" }), "no default v5e layout for c64[8,128]{1,0}: CAUSE"; got != want {
		t.Errorf("Words: %q, want %q", got, want)
	}
	de.NoDefault = false
	if got, want := de.Words(nil, func(error) string { return "CAUSE" }), "default v5e layout c64[8,128]{1,0}: CAUSE"; got != want {
		t.Errorf("Words: %q, want %q", got, want)
	}
	if got := de.Error(); got != "default v5e layout c64[8,128]{1,0}: "+de.Err.Error() {
		t.Errorf("Error: %q", got)
	}
}
