//go:build linux

package buffer

import "golang.org/x/sys/unix"

// adviseHuge asks for transparent huge pages on the mapping (best effort).
func adviseHuge(m []byte) { _ = unix.Madvise(m, unix.MADV_HUGEPAGE) }
