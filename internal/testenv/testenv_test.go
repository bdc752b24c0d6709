package testenv

import "testing"

func TestLong(t *testing.T) {
	for _, c := range []struct {
		v    string
		long bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv(LongEnv, c.v)
		if Long() != c.long || Pick(1, 2) != map[bool]int{false: 1, true: 2}[c.long] {
			t.Errorf("%s=%q: Long() = %v, Pick(1, 2) = %d", LongEnv, c.v, Long(), Pick(1, 2))
		}
	}
}
