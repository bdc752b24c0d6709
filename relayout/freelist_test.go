package relayout

import "testing"

func TestFreeList(t *testing.T) {
	made := 0
	f := newFreeList(2, 1, func() []byte { made++; return make([]byte, 8) })
	if made != 1 || f.len() != 1 {
		t.Fatalf("filled with %d values, holds %d; want 1, 1", made, f.len())
	}
	a, b := f.get(), f.get() // the filled one, then a new one
	if made != 2 || f.len() != 0 || len(a) != 8 || len(b) != 8 {
		t.Fatalf("after two gets: made %d, holds %d", made, f.len())
	}
	f.put(a)
	f.put(b)
	f.put(make([]byte, 8)) // beyond the size: dropped
	if f.len() != 2 {
		t.Fatalf("holds %d after three puts, want its size 2", f.len())
	}
	if got := f.get(); &got[0] != &a[0] {
		t.Error("get did not return the first value put back")
	}
	if made != 2 {
		t.Errorf("made %d values, want 2", made)
	}
	if n := testing.AllocsPerRun(100, func() { f.put(f.get()) }); n != 0 {
		t.Errorf("get and put allocate %v times", n)
	}
}

// slots hands out each buffer once until it is given back, then a new one.
func TestSlots(t *testing.T) {
	s := newSlots(2, 8)
	a, i := s.take()
	b, j := s.take()
	c, k := s.take()
	if i < 0 || j < 0 || i == j || k != -1 || &a[0] == &b[0] || &c[0] == &a[0] || &c[0] == &b[0] || len(c) != 8 {
		t.Fatalf("slots %d, %d, %d: want two distinct slots, then a new buffer", i, j, k)
	}
	s.give(k) // a new buffer's slot: nothing to give back
	s.give(i)
	if d, l := s.take(); l != i || &d[0] != &a[0] {
		t.Errorf("after giving slot %d back, took slot %d", i, l)
	}
}
