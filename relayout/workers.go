package relayout

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// A pool of long-lived goroutines runs the parts of parallel copies, so that Copy does
// not allocate: tasks travel by value over a channel, and the calling goroutine waits
// for them on a counter from a free list. Blocking instead (a WaitGroup) made the
// runtime allocate a waiter record whenever a GC had emptied its caches: the benchmark
// saw 0.25 allocations per 2-worker copy.
type task struct {
	part     func(dst, src []byte, lo, hi int64) // a plan's runRange, or another pass's part
	dst, src []byte
	lo, hi   int64
	pending  *atomic.Int64
}

var (
	poolMu   sync.Mutex
	poolSize int
	tasks    = make(chan task)
	counters = newFreeList(64, 0, func() *atomic.Int64 { return new(atomic.Int64) })
)

// ensureWorkers starts goroutines until n are serving tasks.
func ensureWorkers(n int) {
	poolMu.Lock()
	defer poolMu.Unlock()
	for ; poolSize < n; poolSize++ {
		go func() {
			for t := range tasks {
				t.part(t.dst, t.src, t.lo, t.hi)
				t.pending.Add(-1)
			}
		}()
	}
}

// parallel runs part on [0, total) as w contiguous ranges, the first on the calling
// goroutine. part is a method value made once per plan (a new one would allocate).
func parallel(part func(dst, src []byte, lo, hi int64), dst, src []byte, total, w int64) {
	ensureWorkers(int(w - 1))
	pending := counters.get()
	pending.Store(w - 1)
	for i := int64(1); i < w; i++ {
		tasks <- task{part, dst, src, total * i / w, total * (i + 1) / w, pending}
	}
	part(dst, src, 0, total/w)
	for pending.Load() > 0 {
		runtime.Gosched()
	}
	counters.put(pending)
}
