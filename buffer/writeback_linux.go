//go:build linux

package buffer

import (
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// StartWriteback asks the system to start writing w's dirty pages to its disk, when w
// is a file, and returns at once: a goroutine of its own makes the call
// (sync_file_range SYNC_FILE_RANGE_WRITE), which may wait for room in the disk's queue
// (on a busy disk that stalled the writer in line; a request while one is waiting is
// dropped, the next covering the file too). Data written but not yet sent sits in the
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
	startKicker.Do(func() { go kicker() })
	select {
	case kicks <- f:
	default:
	}
}

var (
	kicks       = make(chan *os.File, 16)
	startKicker sync.Once
)

// kicker starts the writeback of the files StartWriteback is given; one closed
// meanwhile is skipped (SyscallConn and Control go through the os.File, never a bare
// descriptor that may have been reused).
func kicker() {
	for f := range kicks {
		rc, err := f.SyscallConn()
		if err != nil {
			continue
		}
		rc.Control(func(fd uintptr) {
			unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
		})
	}
}
