package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// fileBackend is the local file system: keys are paths. Metadata is not kept.
type fileBackend struct{}

func fileErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (%v)", ErrNotExist, err)
	}
	return err
}

func (fileBackend) stat(_ context.Context, key string) (Attrs, error) {
	st, err := os.Stat(key)
	if err != nil {
		return Attrs{}, fileErr(err)
	}
	if st.IsDir() {
		return Attrs{}, fmt.Errorf("is a directory, not a file")
	}
	return Attrs{Key: key, Size: st.Size(), Version: fileVersion(st)}, nil
}

// fileVersion changes when a file is rewritten or replaced (as an ETag would).
func fileVersion(st fs.FileInfo) string {
	return strconv.FormatInt(st.Size(), 10) + "@" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}

func (fileBackend) readAt(_ context.Context, a Attrs, p []byte, off int64) (int, error) {
	f, err := os.Open(a.Key)
	if err != nil {
		return 0, fileErr(err)
	}
	defer f.Close()
	if a.Version != "" {
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		if fileVersion(st) != a.Version {
			return 0, fmt.Errorf("%w (now %d bytes)", ErrChanged, st.Size())
		}
	}
	n, err := f.ReadAt(p, off)
	if errors.Is(err, io.EOF) {
		return n, fmt.Errorf("%w: the file is shorter than when opened", ErrChanged)
	}
	return n, err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// put writes through a temporary file beside key, renamed into place.
func (fileBackend) put(_ context.Context, key string, r io.Reader, size int64, _ map[string]string, crc []byte) (err error) {
	dir := filepath.Dir(key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(key)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := crc32.New(castagnoli)
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if err != nil {
		return err
	}
	if size >= 0 && n != size {
		return fmt.Errorf("wrote %d bytes, want %d", n, size)
	}
	if got := h.Sum(nil); crc != nil && !bytes.Equal(got, crc) {
		return fmt.Errorf("%w: CRC-32C %x, the upload said %x", ErrChecksum, got, crc)
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), key)
}

// list walks the directory part of prefix for files whose paths start with it.
func (fileBackend) list(_ context.Context, prefix string) ([]Attrs, error) {
	root := prefix
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		root = filepath.Dir(prefix)
	}
	var as []Attrs
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !strings.HasPrefix(p, prefix) {
			return nil
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		as = append(as, Attrs{Key: p, Size: st.Size(), Version: fileVersion(st)})
		return nil
	})
	slices.SortFunc(as, func(a, b Attrs) int { return strings.Compare(a.Key, b.Key) })
	return as, err
}

func (fileBackend) remove(_ context.Context, key string) error {
	return fileErr(os.Remove(key))
}

func (fileBackend) bucketExists(context.Context) (bool, error) { return true, nil }
