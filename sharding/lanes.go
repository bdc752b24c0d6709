package sharding

import (
	"runtime"
	"sync"
)

// lanes run work beside the caller on goroutines of their own, in order within a lane.
// Hashing in lanes, a file always in the same lane so that its bytes reach its hash in
// order, puts a second core to work while the caller reads and converts the next band
// (bench/design-notes.md).
type lanes struct {
	qs      []chan laneItem
	running sync.WaitGroup // the lanes' goroutines
	pending sync.WaitGroup // queued items not yet done
	mu      sync.Mutex
	err     error // the first error of any item
	closed  bool
}

type laneItem struct {
	work  func() error
	after func() // runs whether or not work ran (it returns a buffer)
}

// hashLanes is how many lanes hash: one a core, up to two. The caller's goroutine
// shares the cores with them rather than keeping one: converting a band takes a
// fraction of the time hashing and writing it do, so with one lane on two cores the
// caller would wait on the lane (bench/design-notes.md).
func hashLanes() int { return max(1, min(2, runtime.GOMAXPROCS(0))) }

// newLanes starts n lanes.
func newLanes(n int) *lanes {
	l := &lanes{qs: make([]chan laneItem, max(n, 1))}
	for i := range l.qs {
		q := make(chan laneItem, 64)
		l.qs[i] = q
		l.running.Add(1)
		go func() {
			defer l.running.Done()
			for it := range q {
				if l.failed() == nil {
					if err := it.work(); err != nil {
						l.fail(err)
					}
				}
				if it.after != nil {
					it.after()
				}
				l.pending.Done()
			}
		}()
	}
	return l
}

// len is the number of lanes.
func (l *lanes) len() int { return len(l.qs) }

// do queues work in lane i (taken modulo the lanes); after runs once work has run or,
// after an earlier error, been skipped.
func (l *lanes) do(i int, work func() error, after func()) {
	l.pending.Add(1)
	l.qs[i%len(l.qs)] <- laneItem{work, after}
}

func (l *lanes) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

// failed returns the first error of any item so far.
func (l *lanes) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// wait waits until every queued item is done and returns the first error.
func (l *lanes) wait() error {
	l.pending.Wait()
	return l.failed()
}

// close waits for the queued items and ends the lanes; it may be called again. It
// returns the first error.
func (l *lanes) close() error {
	if !l.closed {
		l.closed = true
		for _, q := range l.qs {
			close(q)
		}
	}
	l.running.Wait()
	return l.failed()
}
