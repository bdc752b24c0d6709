package sharding

import (
	"errors"
	"slices"
	"testing"
)

// TestLanes: items of a lane run in order; after the first error the later items are
// skipped, their after still runs, and wait and close return that error.
func TestLanes(t *testing.T) {
	l := newLanes(3)
	got := make([][]int, 3)
	for k := range 300 {
		l.do(k, func() error { got[k%3] = append(got[k%3], k); return nil }, nil)
	}
	if err := l.wait(); err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if len(g) != 100 || !slices.IsSorted(g) || g[0] != i {
			t.Errorf("lane %d ran %v", i, g)
		}
	}
	boom := errors.New("boom")
	ran, after := 0, 0
	for k := range 10 {
		l.do(0, func() error {
			ran++
			if k == 4 {
				return boom
			}
			return nil
		}, func() { after++ })
	}
	if err := l.wait(); err != boom {
		t.Errorf("wait: %v, want boom", err)
	}
	if err := l.close(); err != boom || l.close() != boom {
		t.Errorf("close: %v, want boom", err)
	}
	if ran != 5 || after != 10 {
		t.Errorf("after an error at item 4: %d items ran, %d afters; want 5 and 10", ran, after)
	}
}
