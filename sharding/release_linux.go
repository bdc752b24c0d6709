//go:build linux

package sharding

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// releasePages drops the pages of b, a consumed part of a read-only file mapping, from
// the resident set (MADV_DONTNEED; the data stays in the file and is read again if
// touched). The range is widened to the page holding b's first byte.
func releasePages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	skew := uintptr(unsafe.Pointer(&b[0])) % page
	p := unsafe.Add(unsafe.Pointer(&b[0]), -int(skew))
	_ = unix.Madvise(unsafe.Slice((*byte)(p), len(b)+int(skew)), unix.MADV_DONTNEED)
}
