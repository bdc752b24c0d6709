//go:build !unix

package sharding

import "os"

// tryLock reports false where there is no flock: a job's own directory is then
// unlocked (and removed at its end), and no other job's is ever taken for gone.
func tryLock(*os.File) bool { return false }

// lockOwn does nothing where there is no flock.
func lockOwn(*os.File) error { return nil }
