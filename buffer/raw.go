package buffer

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tpulayout/tpulayout/layout"
)

// MmapThreshold is the data size from which readers map a file read-only instead of
// reading it into memory. Set it to a negative value to never map.
var MmapThreshold int64 = 64 << 20

// ReadRaw reads a file that holds exactly the bytes of one buffer of shape (its
// footprint, padding included, little-endian). A file of another size is an error
// wrapping [ErrSize] that names the expected and the actual byte counts. Files of at
// least [MmapThreshold] bytes are mapped read-only (see [Buffer.Close]).
func ReadRaw(path string, shape layout.Shape) (*Buffer, error) {
	return ReadRawNamed(path, path, shape)
}

// ReadRawNamed is [ReadRaw] of the file path, whose errors call it name (a
// *fs.PathError among them has Path name): for a temporary copy of a file known by
// another name.
func ReadRawNamed(path, name string, shape layout.Shape) (*Buffer, error) {
	b, err := newHeader(shape)
	if err != nil {
		return nil, fmt.Errorf("buffer: read %s: %w", name, err)
	}
	f, size, err := OpenSized(path)
	if err != nil {
		return nil, fmt.Errorf("buffer: read raw: %w", NamePathError(err, name))
	}
	defer f.Close()
	path = name // what errors call it
	want := b.ix.FootprintBytes()
	if size != want {
		return nil, fmt.Errorf("%w: %s: %v needs %d bytes, the file has %d", ErrSize, path, b.Shape, want, size)
	}
	if err := b.load(f, 0, want, size); err != nil {
		return nil, fmt.Errorf("buffer: read %s: %w", path, err)
	}
	return b, nil
}

// OpenSized opens path for reading and returns its size, for readers that check a
// file's length before they read it.
func OpenSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// ReadAt returns a buffer of shape whose Data is the shape's footprint read from f at
// byte off, f being size bytes long: for readers of file formats that hold one array's
// bytes at an offset. Data of at least [MmapThreshold] bytes is mapped read-only (see
// [Buffer.Close]); a range beyond the file is an error wrapping [ErrSize].
func ReadAt(f *os.File, off, size int64, shape layout.Shape) (*Buffer, error) {
	b, err := newHeader(shape)
	if err != nil {
		return nil, err
	}
	if err := b.load(f, off, b.ix.FootprintBytes(), size); err != nil {
		return nil, err
	}
	return b, nil
}

// load fills b.Data with bytes [off, off+n) of f, whose size is total: mapped when n
// reaches MmapThreshold (and mapping works here), else read into aligned memory.
func (b *Buffer) load(f *os.File, off, n, total int64) error {
	if off < 0 || n < 0 || off+n > total || off+n < 0 {
		return fmt.Errorf("%w: bytes [%d, %d) beyond the file's %d", ErrSize, off, off+n, total)
	}
	if canMap && MmapThreshold >= 0 && n >= MmapThreshold && n > 0 {
		m, unmap, err := mapFile(f, total)
		if err == nil {
			b.Data = m[off : off+n : off+n]
			b.unmap = unmap
			b.mapped = true
			return nil
		}
		// fall back to reading
	}
	if tooBig(n) {
		return fmt.Errorf("%w: %d bytes", ErrSize, n)
	}
	data := alignedBytes(int(n))
	if _, err := f.ReadAt(data, off); err != nil && !(err == io.EOF && n == 0) {
		return err
	}
	b.Data = data
	return nil
}

// WriteRaw writes buf.Data to path atomically (see [WriteFileAtomic]).
func WriteRaw(path string, buf *Buffer) error {
	return WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Data)
		return err
	})
}

// NamePathError is err with name for the Path of err when err is an *fs.PathError
// (as [OpenSized]'s errors are): for an error about a temporary copy of a file known
// by another name.
func NamePathError(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok && pe.Path != name {
		c := *pe
		c.Path = name
		return &c
	}
	return err
}

// PathsIn is err naming the files of directory dir as the same files of directory
// shown, when err is an *fs.PathError (its Path) or an *os.LinkError (its Old and
// New) about them: for an error about a file of a temporary directory that becomes
// shown. Other errors are returned as they are.
func PathsIn(err error, dir, shown string) error {
	in := func(p string) string {
		if filepath.Dir(p) == filepath.Clean(dir) {
			return filepath.Join(shown, filepath.Base(p))
		}
		return p
	}
	switch e := err.(type) {
	case *fs.PathError:
		c := *e
		c.Path = in(e.Path)
		return &c
	case *os.LinkError:
		c := *e
		c.Old, c.New = in(e.Old), in(e.New)
		return &c
	}
	return err
}
