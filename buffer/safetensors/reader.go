package safetensors

import (
	"bufio"
	"io"

	"github.com/tpulayout/tpulayout/buffer"
)

// OpenReader reads and validates the header of a safetensors file of size bytes
// read through r (such as an object in a bucket), as Open does; name is what errors
// and the File's Path call it. The first MiB is read in one piece, which holds the
// header of most files, so that a remote file costs one request.
func OpenReader(r io.ReaderAt, size int64, name string) (*File, error) {
	s, err := readHeader(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<20), size)
	if err != nil {
		return nil, &buffer.FileError{Name: name, Err: err}
	}
	s.Path = name
	return s, nil
}
