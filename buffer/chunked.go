package buffer

import (
	"errors"
	"io"
)

// WriteChunk is the largest piece ChunkedWriter hands the system in one call: the
// kernel's copy into the page cache runs faster in pieces of 1 MiB than in larger ones
// (bench/design-notes.md).
const WriteChunk = 1 << 20

// ChunkedWriter passes writes on to W (and WriteAt to W's WriteAt, when it has one) in
// pieces of at most [WriteChunk] bytes. Errors and short writes are W's, with the count
// of bytes written before them. After a write of WriteChunk bytes or more to a file,
// the system is asked to start sending the file's dirty pages to the disk (see
// [StartWriteback]).
type ChunkedWriter struct{ W io.Writer }

var errNoWriteAt = errors.New("buffer: ChunkedWriter.WriteAt on a writer without WriteAt")

// Write writes p to W in pieces.
func (c ChunkedWriter) Write(p []byte) (int, error) {
	n, err := inPieces(p, func(piece []byte, _ int) (int, error) { return c.W.Write(piece) })
	if n >= WriteChunk {
		StartWriteback(c.W)
	}
	return n, err
}

// WriteAt writes p at off in W, which must be an [io.WriterAt], in pieces.
func (c ChunkedWriter) WriteAt(p []byte, off int64) (int, error) {
	wa, ok := c.W.(io.WriterAt)
	if !ok {
		return 0, errNoWriteAt
	}
	n, err := inPieces(p, func(piece []byte, n int) (int, error) { return wa.WriteAt(piece, off+int64(n)) })
	if n >= WriteChunk {
		StartWriteback(c.W)
	}
	return n, err
}

// inPieces writes p through write, WriteChunk bytes at a time (n: the bytes before
// the piece), stopping at the first error or short write.
func inPieces(p []byte, write func(piece []byte, n int) (int, error)) (int, error) {
	n := 0
	for n < len(p) {
		piece := p[n:min(len(p), n+WriteChunk)]
		m, err := write(piece, n)
		n += m
		if err == nil && m < len(piece) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
