//go:build linux

package buffer

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// StartWriteback asks the system to start writing w's dirty pages to its disk, when w
// is a file, and returns without waiting (sync_file_range SYNC_FILE_RANGE_WRITE; it
// may wait for room in the disk's queue). Data written but not yet sent sits in the
// page cache until the kernel's background writeback begins (at 10% of memory dirty)
// or an fsync, which then waits for all of it: sent as it is written, the disk works
// while the job converts, and the fsync before the rename waits for the last bytes
// only. Anything else (a pipe, a terminal, a writer that is not a file) is left alone;
// errors are ignored, as the fsync after reports what matters. Not after
// SetDurable(false).
func StartWriteback(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok || !Durable() { // not durable: the system's own writeback, as for cat
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	})
}
