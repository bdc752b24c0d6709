package buffer

import (
	"fmt"
	"os"

	"github.com/tpulayout/tpulayout/layout"
)

// ErrNotMapped marks an error of [MapFile] where the file could not be mapped (no mmap
// on this system, a footprint of 0 bytes, a refused mapping): the caller reads instead.
var ErrNotMapped error = &Kind{"not mapped"}

// MapFile returns a buffer of shape whose Data is the first footprint bytes of f,
// mapped read-only whatever their size ([ReadAt] maps only from [MmapThreshold]): for
// a reader that goes through a file band by band and releases each band's pages once
// done ([Buffer.ReleasePages]), so that nothing is copied out of the page cache and
// resident memory stays a few bands. f must be at least the footprint long; a shorter
// file is an error wrapping [ErrSize], checked before mapping. A file truncated later,
// while its mapping is read, faults: read it inside [GuardFaults]. Close unmaps.
func MapFile(f *os.File, shape layout.Shape) (*Buffer, error) {
	b, err := newHeader(shape)
	if err != nil {
		return nil, err
	}
	n := b.ix.FootprintBytes()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < n {
		return nil, fmt.Errorf("%w: %s has %d bytes, %v needs %d", ErrSize, f.Name(), st.Size(), shape, n)
	}
	if !canMap || n == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotMapped, f.Name())
	}
	m, unmap, err := mapFile(f, n)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotMapped, err)
	}
	b.Data = m[:n:n]
	b.unmap = unmap
	b.mapped = true
	return b, nil
}
