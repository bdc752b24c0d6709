//go:build unix

package testfiles

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// FaultingMapping maps n bytes of a file in a temporary directory and then truncates
// the file, so that reading any byte of the mapping faults (SIGBUS), as reading a
// mapped file that another process shortened does. It skips t where the file cannot be
// mapped; the mapping is unmapped when t ends.
func FaultingMapping(t testing.TB, n int) []byte {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "faulting.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(int64(n)); err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	if err := f.Truncate(0); err != nil { // every page of the mapping now faults
		t.Fatal(err)
	}
	return m
}
