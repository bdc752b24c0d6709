package relayout

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
