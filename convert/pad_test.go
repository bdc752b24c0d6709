package convert

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

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
