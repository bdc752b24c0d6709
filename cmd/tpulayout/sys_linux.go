//go:build linux

package main

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// releasePages drops the pages of b, a consumed part of a read-only file mapping, from
// the process's resident set (MADV_DONTNEED; the data stays in the file and would be
// read again if touched). The range is widened to the page holding b's first byte, which
// is harmless in a read-only shared mapping of a file.
func releasePages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	skew := uintptr(unsafe.Pointer(&b[0])) % page
	p := unsafe.Add(unsafe.Pointer(&b[0]), -int(skew))
	_ = unix.Madvise(unsafe.Slice((*byte)(p), len(b)+int(skew)), unix.MADV_DONTNEED)
}
