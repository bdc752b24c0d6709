package relayout

import "sync/atomic"

// freeList keeps values for reuse, so that a Copy takes the buffers and counters it
// needs without allocating. get takes one, making a new one only when the list is empty
// (more copies run at once than it was filled for); put returns one, dropping it when
// the list is full. It is safe for concurrent use.
type freeList[T any] struct {
	free  chan T
	fresh func() T
}

// newFreeList returns a list that holds up to size values, filled with n of them now.
func newFreeList[T any](size, n int, fresh func() T) *freeList[T] {
	f := &freeList[T]{free: make(chan T, size), fresh: fresh}
	for range min(n, size) {
		f.free <- fresh()
	}
	return f
}

func (f *freeList[T]) get() T {
	select {
	case v := <-f.free:
		return v
	default:
		return f.fresh()
	}
}

func (f *freeList[T]) put(v T) {
	select {
	case f.free <- v:
	default:
	}
}

// len is the number of values waiting in the list.
func (f *freeList[T]) len() int { return len(f.free) }

// slots keeps a fixed set of buffers taken and returned with one atomic swap each, for
// callers that take one per short call (a channel's lock cost more than the call's
// work: f8 → bf16 runs of 128 elements spent a third of their time in it). take makes
// a new buffer when every slot is taken (more callers at once than it was made for).
type slots struct {
	bufs [][]byte
	busy []atomic.Bool
	size int
}

func newSlots(n, size int) *slots {
	s := &slots{bufs: make([][]byte, n), busy: make([]atomic.Bool, n), size: size}
	for i := range s.bufs {
		s.bufs[i] = make([]byte, size)
	}
	return s
}

// take returns a free buffer and its slot (-1 for a new buffer).
func (s *slots) take() ([]byte, int) {
	for i := range s.busy {
		if !s.busy[i].Load() && s.busy[i].CompareAndSwap(false, true) {
			return s.bufs[i], i
		}
	}
	return make([]byte, s.size), -1
}

// give returns the buffer of slot i.
func (s *slots) give(i int) {
	if i >= 0 {
		s.busy[i].Store(false)
	}
}
