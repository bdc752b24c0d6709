package relayout

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// A pool of long-lived goroutines runs the parts of parallel copies, so that Copy does
// not allocate: tasks travel by value over a channel, and the calling goroutine waits
// for them on a counter from a free list. Blocking instead (a WaitGroup) made the
// runtime allocate a waiter record whenever a GC had emptied its caches, so a copy
// could allocate.
type task struct {
	part     func(dst, src []byte, lo, hi int64) // a plan's runRange, or another pass's part
	dst, src []byte
	lo, hi   int64
	pending  *counter
}

// counter counts a copy's parts still running on workers, and holds the first panic
// of one of them for the caller to raise again.
type counter struct {
	atomic.Int64
	panicked atomic.Pointer[any]
}

var (
	poolMu   sync.Mutex
	poolSize int
	tasks    = make(chan task)
	counters = newFreeList(64, 0, func() *counter { return new(counter) })
)

// ensureWorkers starts goroutines until n are serving tasks.
func ensureWorkers(n int) {
	poolMu.Lock()
	defer poolMu.Unlock()
	for ; poolSize < n; poolSize++ {
		go func() {
			// A fault (say, reading a mapped file that another process truncated) panics
			// instead of crashing the process, so that the caller gets it.
			debug.SetPanicOnFault(true)
			for t := range tasks {
				runTask(t)
			}
		}()
	}
}

// runTask runs one part on a worker; a panic goes to the caller through pending.
func runTask(t task) {
	defer func() {
		if r := recover(); r != nil {
			p := new(any) // only here: &r would make every task allocate
			*p = r
			t.pending.panicked.CompareAndSwap(nil, p)
		}
		t.pending.Add(-1)
	}()
	t.part(t.dst, t.src, t.lo, t.hi)
}

// runOwn runs the caller's own part and returns its panic, if any, so that the caller
// can wait for the workers before raising it: they use dst and src.
func runOwn(part func(dst, src []byte, lo, hi int64), dst, src []byte, lo, hi int64) (panicked any) {
	defer func() { panicked = recover() }()
	part(dst, src, lo, hi)
	return nil
}

// parallel runs part on [0, total) as w contiguous ranges, the first on the calling
// goroutine. part is a method value made once per plan (a new one would allocate). A
// panic in any part is raised again here once every part has stopped.
func parallel(part func(dst, src []byte, lo, hi int64), dst, src []byte, total, w int64) {
	ensureWorkers(int(w - 1))
	pending := counters.get()
	pending.Store(w - 1)
	pending.panicked.Store(nil)
	for i := int64(1); i < w; i++ {
		tasks <- task{part, dst, src, total * i / w, total * (i + 1) / w, pending}
	}
	r := runOwn(part, dst, src, 0, total/w)
	for pending.Load() > 0 {
		runtime.Gosched()
	}
	if p := pending.panicked.Load(); r == nil && p != nil {
		r = *p
	}
	counters.put(pending)
	if r != nil {
		panic(r)
	}
}

// workersFor is how many of want workers a copy that moves bytes (source and
// destination) in total parts should use: one for each s.workerBytes. A worker that
// moves less costs more than it saves: it starts on a core whose caches hold none of
// the data, and when that core is busy (another process) the copy waits for it.
func (s workSplit) workersFor(want, bytes, total int64) int64 {
	return max(1, min(want, bytes/s.workerBytes, total))
}
