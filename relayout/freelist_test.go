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
