package buffer

import (
	"math"
	"testing"
)

// The size limits of one slice, for a 64-bit int and, on any host, for a 32-bit one: CI
// cannot always execute 386 test binaries, and these limits are what differs there.
func TestSliceLimits(t *testing.T) {
	cases := []struct {
		n, maxInt     int64
		tooBig, mapOK bool
	}{
		{-1, math.MaxInt32, true, false},
		{0, math.MaxInt32, false, false},
		{1 << 20, math.MaxInt32, false, true},
		{math.MaxInt32 - Alignment, math.MaxInt32, false, true},
		{math.MaxInt32 - Alignment + 1, math.MaxInt32, true, true},
		{math.MaxInt32, math.MaxInt32, true, true},
		{math.MaxInt32 + 1, math.MaxInt32, true, false},
		{1 << 32, math.MaxInt32, true, false},
		{1 << 32, math.MaxInt64, false, true},
		{maxAlloc, math.MaxInt64, false, true},
		{maxAlloc + 1, math.MaxInt64, true, true},
		{math.MaxInt64, math.MaxInt64, true, true},
	}
	for _, c := range cases {
		if got := tooBigFor(c.n, c.maxInt); got != c.tooBig {
			t.Errorf("tooBigFor(%d, %d) = %v, want %v", c.n, c.maxInt, got, c.tooBig)
		}
		if got := mappable(c.n, c.maxInt); got != c.mapOK {
			t.Errorf("mappable(%d, %d) = %v, want %v", c.n, c.maxInt, got, c.mapOK)
		}
	}
	if tooBig(1<<20) || !tooBig(-1) {
		t.Error("tooBig disagrees with tooBigFor at this platform's int")
	}
}
