//go:build !unix

package buffer

import (
	"errors"
	"os"
)

// mapFile is not available here: readers fall back to reading into memory.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	return nil, nil, errors.ErrUnsupported
}

const canMap = false

func dropPages([]byte) {}
