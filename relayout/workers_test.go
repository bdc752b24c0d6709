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

// The tests run their small arrays on as many workers as they ask for, from 64 KiB
// moved (the threshold before workersFor), and cut their runs and repeats into units
// of 4 KiB or more, so that the parallel paths and the cuts are tested.
func init() { workerBytes, splitBytes = 64<<10, 4<<10 }

// Copies use a second worker only from 4 L2 caches' worth of bytes moved, and never more
// workers than parts.
func TestWorkersFor(t *testing.T) {
	l2 := int64(defaultBlockBytes())
	s := workSplit{workerBytes: 4 * l2}
	for _, c := range []struct{ want, bytes, total, got int64 }{
		{2, 2 * 256 * 256 * 4, 1024, 1}, // the 256² f32 copy that Python saw at 45 µs with two workers
		{2, 8*l2 - 1, 1024, 1},
		{2, 8 * l2, 1024, 2},
		{8, 20 * l2, 1024, 5},
		{8, 1 << 40, 3, 3},
		{2, 1 << 40, 0, 1},
		{1, 1 << 40, 1024, 1},
	} {
		if got := s.workersFor(c.want, c.bytes, c.total); got != c.got {
			t.Errorf("workersFor(%d, %d, %d) = %d, want %d", c.want, c.bytes, c.total, got, c.got)
		}
	}
}
