//go:build !unix

package buffer

import (
	"os"
	"time"
)

// lockFile does nothing where there are no advisory locks: staleness goes by age.
func lockFile(*os.File) error { return nil }

// isUnlocked reports whether f is older than StaleAge.
func isUnlocked(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && time.Since(st.ModTime()) > StaleAge
}
