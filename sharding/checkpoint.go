package sharding

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
)

// Checkpoint is a safetensors checkpoint: one file, or the files a
// model.safetensors.index.json maps tensor names to.
type Checkpoint struct {
	Path    string                         // what was opened
	Tensors []TensorEntry                  // sorted by name
	files   map[*safetensors.File]ckptFile // where the files' bytes come from (see file)
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
	src, err := locate(path).checkpoint()
	if err != nil {
		return nil, err
	}
	return openFrom(src)
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
