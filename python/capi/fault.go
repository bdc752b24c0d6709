package main

import (
	"fmt"
	"unsafe"
)

// namedBuf is a buffer an export reads or writes, named for errors.
type namedBuf struct {
	name string
	b    []byte
}

// faultError is a memory fault inside a caller's buffer: an input error (the buffer
// went away under the call), not the library's.
type faultError struct {
	buf        string
	off, total int64
}

func (e faultError) Error() string {
	return fmt.Sprintf("tpulayout: cannot read the %s buffer: a memory fault at byte %d of its %d, as when a memory-mapped file is truncated while it is read; the result is incomplete",
		e.buf, e.off, e.total)
}

// faultIn returns the faultError of a recovered panic v that is a memory fault
// (runtime/debug.SetPanicOnFault) inside one of bufs, else nil.
func faultIn(v any, bufs []namedBuf) error {
	f, ok := v.(interface{ Addr() uintptr })
	if !ok {
		return nil
	}
	a := f.Addr()
	for _, nb := range bufs {
		if len(nb.b) == 0 {
			continue
		}
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(nb.b)))
		if a >= lo && a-lo < uintptr(len(nb.b)) {
			return faultError{nb.name, int64(a - lo), int64(len(nb.b))}
		}
	}
	return nil
}
