//go:build unix

package buffer

import (
	"fmt"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only. Sequential read-ahead is requested, plus
// transparent huge pages on Linux (see mmap_linux.go).
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if !mappable(size, math.MaxInt) {
		return nil, nil, fmt.Errorf("buffer: cannot map %d bytes of %s", size, f.Name())
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("buffer: mmap %s: %w", f.Name(), err)
	}
	_ = unix.Madvise(m, unix.MADV_SEQUENTIAL)
	adviseHuge(m)
	return m, func() error {
		if err := unix.Munmap(m); err != nil {
			return fmt.Errorf("buffer: munmap: %w", err)
		}
		return nil
	}, nil
}

const canMap = true
