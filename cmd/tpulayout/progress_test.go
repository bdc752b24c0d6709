package main

import "testing"

// Progress never shows 100% before the end, nor 0% once something is done.
func TestWholePercent(t *testing.T) {
	for _, c := range []struct {
		pct  float64
		want string
	}{{0, "0%"}, {0.4, "<1%"}, {1, "1%"}, {50.7, "50%"}, {99.6, "99%"}, {100, "100%"}} {
		if got := wholePercent(c.pct); got != c.want {
			t.Errorf("wholePercent(%v) = %q, want %q", c.pct, got, c.want)
		}
	}
}
