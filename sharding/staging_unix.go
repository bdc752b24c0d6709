//go:build unix

package sharding

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockOwn locks a job's new lock file f (see tryLock).
func lockOwn(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// tryLock takes an exclusive flock on f without waiting; it reports whether it got
// it. The lock lasts until f is closed or the process ends.
func tryLock(f *os.File) bool {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
