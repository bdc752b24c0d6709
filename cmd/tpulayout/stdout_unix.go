//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// stdoutReplaced reports whether file descriptor 1 is what Go's runtime puts in
// place of a closed standard output: /dev/null opened read-write. A shell's
// "> /dev/null" opens it write-only, so a deliberate discard is not taken for one.
func stdoutReplaced() bool {
	var st, null unix.Stat_t
	if unix.Fstat(1, &st) != nil || unix.Stat(os.DevNull, &null) != nil {
		return false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != null.Rdev {
		return false
	}
	fl, err := unix.FcntlInt(1, unix.F_GETFL, 0)
	return err == nil && fl&unix.O_ACCMODE == unix.O_RDWR
}
