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
	p        *Plan
	dst, src []byte
	lo, hi   int64
	pending  *atomic.Int64
}

var (
	poolMu   sync.Mutex
	poolSize int
	tasks    = make(chan task)
	counters = make(chan *atomic.Int64, 64)
)

// ensureWorkers starts goroutines until n are serving tasks.
func ensureWorkers(n int) {
	poolMu.Lock()
	defer poolMu.Unlock()
	for ; poolSize < n; poolSize++ {
		go func() {
			for t := range tasks {
				t.p.runRange(t.dst, t.src, t.lo, t.hi)
				t.pending.Add(-1)
			}
		}()
	}
}

// parallel runs [0, total) as w contiguous parts, the first on the calling goroutine.
func (p *Plan) parallel(dst, src []byte, total, w int64) {
	ensureWorkers(int(w - 1))
	var pending *atomic.Int64
	select {
	case pending = <-counters:
	default:
		pending = new(atomic.Int64)
	}
	pending.Store(w - 1)
	for i := int64(1); i < w; i++ {
		tasks <- task{p, dst, src, total * i / w, total * (i + 1) / w, pending}
	}
	p.runRange(dst, src, 0, total/w)
	for pending.Load() > 0 {
		runtime.Gosched()
	}
	select {
	case counters <- pending:
	default:
	}
}
