//go:build linux

package buffer

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseHuge asks for transparent huge pages on the mapping (best effort).
func adviseHuge(m []byte) { _ = unix.Madvise(m, unix.MADV_HUGEPAGE) }

// dropPages drops the pages of m, part of a read-only shared file mapping, from the
// resident set (MADV_DONTNEED: the data stays in the file and is read again if touched).
// The range is widened to the page holding m's first byte, which is harmless in such a
// mapping.
func dropPages(m []byte) {
	if len(m) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	skew := uintptr(unsafe.Pointer(&m[0])) % page
	p := unsafe.Add(unsafe.Pointer(&m[0]), -int(skew))
	_ = unix.Madvise(unsafe.Slice((*byte)(p), len(m)+int(skew)), unix.MADV_DONTNEED)
}
