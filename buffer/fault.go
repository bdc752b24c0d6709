package buffer

import (
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"
)

// ErrFault marks an error of GuardFaults: a memory-mapped buffer's file shrank (or its
// storage failed) while it was read.
var ErrFault = errors.New("memory fault reading a mapped buffer")

// GuardFaults runs f so that a memory fault inside any of bufs' Data (a mapped file
// truncated by another process while it is read faults with SIGBUS, which kills a Go
// process) is returned as an error wrapping ErrFault, naming what and the byte, instead.
// Other panics go on. f runs on the calling goroutine; relayout's workers turn their
// faults into panics raised there too.
func GuardFaults(what string, f func() error, bufs ...*Buffer) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if a, ok := r.(interface{ Addr() uintptr }); ok {
			for _, b := range bufs {
				if off, in := b.contains(a.Addr()); in {
					err = fmt.Errorf("%w: %s, at byte %d of %d: its file shrank or failed while it was read", ErrFault, what, off, len(b.Data))
					return
				}
			}
		}
		panic(r)
	}()
	return f()
}

// contains reports whether address a lies in b's Data, and at which byte.
func (b *Buffer) contains(a uintptr) (int64, bool) {
	if b == nil || len(b.Data) == 0 {
		return 0, false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b.Data)))
	if a < lo || a-lo >= uintptr(len(b.Data)) {
		return 0, false
	}
	return int64(a - lo), true
}
