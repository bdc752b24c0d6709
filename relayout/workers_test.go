package relayout

import "testing"

// TestParallelPanic checks that a panic in a part that runs on a worker is raised in
// the caller, after every part has stopped, and that the pool works on afterwards.
func TestParallelPanic(t *testing.T) {
	const w = 4
	for _, bad := range []int64{0, 2} { // the caller's own part, and a worker's
		done := make([]bool, w)
		part := func(dst, src []byte, lo, hi int64) {
			done[lo] = true
			if lo == bad {
				panic("boom")
			}
		}
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("part %d panicked: recovered %v, want boom", bad, r)
				}
				for i, d := range done {
					if !d {
						t.Errorf("part %d panicked: part %d had not run when the panic came", bad, i)
					}
				}
			}()
			parallel(part, nil, nil, w, w)
		}()
	}
	n := 0
	parallel(func(_, _ []byte, lo, hi int64) {}, nil, nil, w, w)
	parallel(func(_, _ []byte, lo, hi int64) {
		if lo == 0 {
			n++
		}
	}, nil, nil, w, w)
	if n != 1 {
		t.Errorf("after the panics, a copy ran its first part %d times", n)
	}
}
