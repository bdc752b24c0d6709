package sharding

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/store"
)

// ckptSource is where a checkpoint's files are read from: a local path (localSource)
// or an object of a bucket (bucketSource, remote.go). openFrom reads a checkpoint
// through it; location.checkpoint (output.go) picks it.
type ckptSource interface {
	// name is the checkpoint as Checkpoint.Path and errors name it.
	name() string
	// open opens the checkpoint's one .safetensors file.
	open() (*safetensors.File, ckptFile, error)
	// readIndex reads the checkpoint, an index, whole.
	readIndex() ([]byte, error)
	// checkListed fails, before any is opened, when the files an index names cannot
	// all be read.
	checkListed(files []string) error
	// openListed opens file f, named by the index, beside it.
	openListed(f string) (*safetensors.File, ckptFile, error)
}

// openFrom reads the headers of the checkpoint src holds: one .safetensors file, or
// the files its index (a name ending in .json) maps tensors to. Every file must exist
// and hold exactly the tensors the index maps to it.
func openFrom(src ckptSource) (*Checkpoint, error) {
	c := &Checkpoint{Path: src.name(), files: map[*safetensors.File]ckptFile{}}
	if !strings.HasSuffix(strings.ToLower(c.Path), ".json") {
		sf, cf, err := src.open()
		if err != nil {
			return nil, err
		}
		c.files[sf] = cf
		for _, t := range sf.Tensors {
			c.Tensors = append(c.Tensors, TensorEntry{t, sf})
		}
		c.sort()
		return c, nil
	}
	data, err := src.readIndex()
	if err != nil {
		return nil, err
	}
	idx, err := parseIndex(c.Path, data)
	if err != nil {
		return nil, err
	}
	if err := src.checkListed(idx.files); err != nil {
		return nil, err
	}
	for _, f := range idx.files {
		sf, cf, err := src.openListed(f)
		if err != nil {
			return nil, err
		}
		c.files[sf] = cf
		if err := idx.add(c, f, sf); err != nil {
			return nil, err
		}
	}
	c.sort()
	return c, nil
}

// localSource is a checkpoint on a local disk, its files mapped.
type localSource string

// openLocalSource is the local checkpoint at path (a plain path or a file:// URL),
// which must not be a stream (checkRegular).
func openLocalSource(path string) (ckptSource, error) {
	if strings.HasPrefix(path, "file://") {
		loc, err := store.Parse(path)
		if err != nil {
			return nil, err
		}
		path = loc.Key
	}
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return localSource(path), nil
}

func (l localSource) name() string { return string(l) }

func (l localSource) open() (*safetensors.File, ckptFile, error) {
	return openLocal(string(l))
}

// readIndex reads at most MaxIndexBytes: a device or a FIFO never ends.
func (l localSource) readIndex() ([]byte, error) {
	return readLimited(string(l), "index", MaxIndexBytes)
}

func (l localSource) checkListed(files []string) error {
	dir := filepath.Dir(string(l))
	e := &MissingFilesError{Index: string(l)}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			e.Files = append(e.Files, f)
			e.Errs = append(e.Errs, err)
		}
	}
	if len(e.Files) > 0 {
		return e
	}
	return nil
}

func (l localSource) openListed(f string) (*safetensors.File, ckptFile, error) {
	p := filepath.Join(filepath.Dir(string(l)), f)
	if err := checkRegular(p); err != nil {
		return nil, nil, err
	}
	return openLocal(p)
}

// openLocal opens the .safetensors file at path, to be mapped.
func openLocal(path string) (*safetensors.File, ckptFile, error) {
	sf, err := safetensors.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return sf, localCkpt{sf}, nil
}

// MissingFilesError is the error for a local checkpoint's index that names files that
// are not beside it. It unwraps to the errors of their look-ups (fs.ErrNotExist).
type MissingFilesError struct {
	Index string   // the index's path
	Files []string // the files missing, as the index names them
	Errs  []error  // why each is missing, in order
}

func (e *MissingFilesError) Error() string {
	return fmt.Sprintf("sharding: index %s names %d missing tensor file(s): %s", e.Index, len(e.Files), strings.Join(e.Files, ", "))
}

func (e *MissingFilesError) Unwrap() []error { return e.Errs }
