package sharding

import "sync"

// fanOut runs a fetch's ranged reads on goroutines of their own, each holding a token
// of a semaphore that all the fetches share, and keeps the first error.
type fanOut struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

// goRead runs read on a goroutine of its own once it holds a token of sem, counted
// in all as well (the reads into buffers that outlive f).
func (f *fanOut) goRead(sem chan struct{}, all *sync.WaitGroup, read func() error) {
	sem <- struct{}{}
	f.wg.Add(1)
	all.Add(1)
	go func() {
		defer func() { <-sem; f.wg.Done(); all.Done() }()
		if err := read(); err != nil {
			f.mu.Lock()
			if f.err == nil {
				f.err = err
			}
			f.mu.Unlock()
		}
	}()
}

// wait waits for the reads and returns the first error.
func (f *fanOut) wait() error {
	f.wg.Wait()
	return f.err
}
