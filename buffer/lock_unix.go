//go:build unix

package buffer

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive advisory lock on f, held until f is closed.
func lockFile(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// isUnlocked reports whether nobody holds f locked: it takes the lock and keeps it
// until f is closed, so that a writer cannot start in between.
func isUnlocked(f *os.File) bool {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
