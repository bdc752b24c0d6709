package buffer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes a file through write: the bytes go to a temporary file in the
// same directory, which is flushed, fsynced (or, under a [SyncBatch]'s directory,
// left to the batch) and then renamed over path. If write or any
// step fails, the temporary file is removed and path is left as it was. A new file gets
// mode 0644; an existing file keeps its mode. A path that is a symbolic link is written
// at its target (see LinkTarget) and stays a link.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	return WriteFileAtomicFile(path, func(f *os.File) error {
		bw := bufio.NewWriterSize(ChunkedWriter{f}, 1<<20) // bufio passes large writes through whole
		err := write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			return fmt.Errorf("buffer: write %s: %w", path, err)
		}
		return nil
	})
}

// WriteFileAtomicFile is [WriteFileAtomic] for writers that need the temporary file
// itself (WriteAt, Seek): write gets it open and empty. An error from write is returned
// as it is, so callers keep their own wording; the other steps' errors say what failed.
// A panic in write removes the temporary file too, and goes on.
func WriteFileAtomicFile(path string, write func(f *os.File) error) (err error) {
	return WriteFileAtomicFileNamed(path, "", write)
}

// WriteFileAtomicFileNamed is [WriteFileAtomicFile] for a path in a directory that
// becomes another: its errors call path name ("": path), and the files beside path
// the same files beside name (see [PathsIn]). An error from write is returned as it is.
func WriteFileAtomicFileNamed(path, name string, write func(f *os.File) error) (err error) {
	path = LinkTarget(path) // a symbolic link stays, and the file it names is replaced
	if name == "" {
		name = path
	}
	failed := func(format string, err error) error {
		if name != path {
			err = PathsIn(err, filepath.Dir(path), filepath.Dir(name))
		}
		return fmt.Errorf(format, name, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("buffer: write %s: not a regular file", name)
		}
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		// A loop of links (ELOOP) or a path through a file: replacing it would put a
		// file where the links were.
		return failed("buffer: write %s: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return failed("buffer: write %s: %w", err)
	}
	tmp := f.Name()
	lockFile(f)   // a rerun can tell it from a killed process's (see RemoveStaleTemps)
	done := false // not err == nil: a panic leaves err nil
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return failed("buffer: write %s: %w", err)
	}
	batch := batchFor(path) // a SyncBatch syncs it later, with the others
	if batch != nil {
		StartWriteback(f)
	} else if err = Sync(f); err != nil {
		return failed("buffer: write %s: sync: %w", err)
	}
	if err = f.Close(); err != nil {
		return failed("buffer: write %s: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return failed("buffer: write %s: %w", err)
	}
	done = true
	if batch != nil {
		batch.Add(path)
		return nil
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable where the system allows it; failures are ignored (some
// systems cannot fsync a directory).
func syncDir(dir string) {
	if !Durable() {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// LinkTarget follows the symbolic links of path to the file they name (which need not
// exist yet), so that an atomic write replaces that file and the links stay. A path
// that is not a link, or a loop of links, is returned as it is (WriteFileAtomicFile
// then refuses a loop, which os.Stat reports as ELOOP).
func LinkTarget(path string) string {
	p := path
	for range 40 {
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p
		}
		dst, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(dst) {
			dst = filepath.Join(filepath.Dir(p), dst)
		}
		p = dst
	}
	return path
}
