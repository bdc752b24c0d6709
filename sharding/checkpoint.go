package sharding

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/store"
)

// Checkpoint is a safetensors checkpoint: one file, or the files a
// model.safetensors.index.json maps tensor names to.
type Checkpoint struct {
	Path    string                         // what was opened
	Tensors []TensorEntry                  // sorted by name
	files   map[*safetensors.File]ckptFile // where the files' bytes come from, when not local (see file)
	ahead   map[string]*remoteSource       // tensors being fetched ahead (see prefetch.go)
}

// TensorEntry is one tensor of a checkpoint and the file that holds it.
type TensorEntry struct {
	safetensors.TensorInfo
	File *safetensors.File
}

// OpenCheckpoint reads the headers of a .safetensors file, or of every file that a
// sharded checkpoint's index (a .json file with a "weight_map" from tensor names to
// files next to it) names. Every file must exist and hold exactly the tensors the
// index maps to it. Path may be an s3:// or gs:// URL (see package store): the
// headers are then read from the bucket, and the tensors by ranges as they are
// converted.
func OpenCheckpoint(path string) (*Checkpoint, error) {
	if store.IsURL(path) {
		return openRemoteCheckpoint(path)
	}
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
	if !strings.HasSuffix(strings.ToLower(path), ".json") {
		sf, err := safetensors.Open(path)
		if err != nil {
			return nil, err
		}
		c := &Checkpoint{Path: path}
		for _, t := range sf.Tensors {
			c.Tensors = append(c.Tensors, TensorEntry{t, sf})
		}
		c.sort()
		return c, nil
	}
	data, err := readLimited(path, "index", MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	idx, err := parseIndex(path, data)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	var missing []string
	for _, f := range idx.files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sharding: index %s names %d missing tensor file(s): %s", path, len(missing), strings.Join(missing, ", "))
	}
	c := &Checkpoint{Path: path}
	for _, f := range idx.files {
		if err := checkRegular(filepath.Join(dir, f)); err != nil {
			return nil, err
		}
		sf, err := safetensors.Open(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		if err := idx.add(c, f, sf); err != nil {
			return nil, err
		}
	}
	c.sort()
	return c, nil
}

func (c *Checkpoint) sort() {
	slices.SortFunc(c.Tensors, func(a, b TensorEntry) int { return strings.Compare(a.Name, b.Name) })
}

// Tensor returns the named tensor.
func (c *Checkpoint) Tensor(name string) (TensorEntry, bool) {
	i, ok := slices.BinarySearchFunc(c.Tensors, name, func(t TensorEntry, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return TensorEntry{}, false
	}
	return c.Tensors[i], true
}

// ErrStream is the cause of the error for a checkpoint path that names a pipe, a
// socket or a device: a conversion reads its files by ranges and verify reads them
// again later, which a stream cannot give.
var ErrStream = errors.New("not a regular file but a stream (a pipe or device); a sharded conversion reads its checkpoint by ranges, and verify reads it again later, so give a file")

// checkRegular returns an error wrapping ErrStream when path exists and is not a
// regular file (after links), or a directory, whose errors are the opener's to give.
func checkRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil
	}
	return fmt.Errorf("sharding: checkpoint %s is %w", path, ErrStream)
}
