package layout

import "testing"

func TestIntRange(t *testing.T) {
	for _, c := range []struct {
		d      DType
		lo, hi string
	}{
		{Pred, "0", "1"}, {S4, "-8", "7"}, {U4, "0", "15"}, {S8, "-128", "127"}, {U16, "0", "65535"},
		{S64, "-9223372036854775808", "9223372036854775807"}, {U64, "0", "18446744073709551615"},
	} {
		lo, hi, ok := c.d.IntRange()
		if !ok || lo.String() != c.lo || hi.String() != c.hi {
			t.Errorf("%s: %v %v %v, want %s to %s", c.d, lo, hi, ok, c.lo, c.hi)
		}
	}
	if _, _, ok := F32.IntRange(); ok {
		t.Error("f32 has an integer range")
	}
}
