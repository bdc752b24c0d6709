package buffer

import (
	"os"
	"sync/atomic"
)

var nonDurable atomic.Bool

// SetDurable sets whether the files this module writes reach the disk before they
// are renamed into place (on by default): each is fsynced, and its directory after
// the rename, and the writeback of long files starts as they are written (see
// StartWriteback). Off (tpulayout --sync=false), the bytes are the same and the
// renames as atomic for a running system, but a crash of the machine may leave a
// renamed file whose bytes never reached the disk: for scratch output that is read
// back at once, copied elsewhere, or on tmpfs.
func SetDurable(on bool) { nonDurable.Store(!on) }

// Durable reports whether files are synced (see SetDurable).
func Durable() bool { return !nonDurable.Load() }

// Sync fsyncs f, unless SetDurable(false).
func Sync(f *os.File) error {
	if !Durable() {
		return nil
	}
	return syncFile(f)
}
