package relayout

import "sync"

// A pool of long-lived goroutines runs the parts of parallel copies, so that Copy does
// not allocate: tasks travel by value over a channel and WaitGroups are recycled through
// a free list (a sync.Pool would be emptied by the GC and allocate again: the benchmark
// saw 0.25 allocs per copy).
type task struct {
	p        *Plan
	dst, src []byte
	lo, hi   int64
	wg       *sync.WaitGroup
}

var (
	poolMu   sync.Mutex
	poolSize int
	tasks    = make(chan task)
	waits    = make(chan *sync.WaitGroup, 64)
)

func getWait() *sync.WaitGroup {
	select {
	case wg := <-waits:
		return wg
	default:
		return new(sync.WaitGroup)
	}
}

func putWait(wg *sync.WaitGroup) {
	select {
	case waits <- wg:
	default:
	}
}

// ensureWorkers starts goroutines until n are serving tasks.
func ensureWorkers(n int) {
	poolMu.Lock()
	defer poolMu.Unlock()
	for ; poolSize < n; poolSize++ {
		go func() {
			for t := range tasks {
				t.p.runRange(t.dst, t.src, t.lo, t.hi)
				t.wg.Done()
			}
		}()
	}
}

// parallel runs [0, total) as w contiguous parts, the first on the calling goroutine.
func (p *Plan) parallel(dst, src []byte, total, w int64) {
	ensureWorkers(int(w - 1))
	wg := getWait()
	wg.Add(int(w - 1))
	for i := int64(1); i < w; i++ {
		tasks <- task{p, dst, src, total * i / w, total * (i + 1) / w, wg}
	}
	p.runRange(dst, src, 0, total/w)
	wg.Wait()
	putWait(wg)
}
