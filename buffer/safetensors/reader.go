package safetensors

import (
	"bufio"
	"fmt"
	"io"
)

// OpenReader reads and validates the header of a safetensors file of size bytes
// read through r (such as an object in a bucket), as Open does; name is what errors
// and the File's Path call it. The first MiB is read in one piece, which holds the
// header of most files, so that a remote file costs one request.
func OpenReader(r io.ReaderAt, size int64, name string) (*File, error) {
	s, err := readHeader(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<20), size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Path = name
	return s, nil
}
