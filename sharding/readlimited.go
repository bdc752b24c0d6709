package sharding

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// ReadManifest reads a manifest file (at most manifest.MaxBytes), strictly: see
// manifest.Parse.
func ReadManifest(path string) (*manifest.Manifest, error) {
	data, err := readLimited(path, "manifest", manifest.MaxBytes)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("sharding: manifest %s: %w", path, err)
	}
	return m, nil
}

// Size limits of the JSON files the package reads whole (a manifest's is
// manifest.MaxBytes): far above any real file (a
// manifest of 1,048,576 devices that all hold one shard is a few KB, one that lists
// each device's files about 100 bytes a device), low enough that /dev/zero or a
// mistyped path to a checkpoint fails at once instead of filling memory.
const (
	MaxRulesBytes = 16 << 20
	MaxIndexBytes = 64 << 20
)

// readLimited reads the file at path whole, failing if it holds more than limit bytes
// (it reads at most limit+1: a device or a FIFO never ends).
func readLimited(path, what string, limit int64) ([]byte, error) {
	return readLimitedAs(path, path, what, limit)
}

// readLimitedAs is readLimited naming the file shown in its errors (a failed open's
// fs.PathError.Path included): the name that the user knows for path.
func readLimitedAs(path, shown, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, showPath(err, shown)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("sharding: %s %s: %w", what, shown, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("sharding: %s %s is larger than the limit of %d bytes", what, shown, limit)
	}
	return data, nil
}

// showPath is err, where it is a failed file operation (*fs.PathError), with the
// file named shown: the name that the user knows for it; any other err is itself.
func showPath(err error, shown string) error {
	pe, ok := err.(*fs.PathError)
	if !ok {
		return err
	}
	c := *pe
	c.Path = shown
	return &c
}
