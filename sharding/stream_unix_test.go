//go:build unix

package sharding

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A checkpoint path that names a FIFO is refused as a stream, before a byte is read:
// a sharded conversion reads it by ranges and verify again later (issue 44.9: it was
// read as a file of 0 bytes). So is a FIFO among an index's files.
func TestCheckpointFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.safetensors")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	index := filepath.Join(dir, "model.safetensors.index.json")
	if err := os.WriteFile(index, []byte(`{"weight_map": {"x": "model.safetensors"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, index} {
		_, err := OpenCheckpoint(path)
		if !errors.Is(err, ErrStream) || !strings.Contains(err.Error(), "checkpoint "+fifo+" is not a regular file") {
			t.Errorf("OpenCheckpoint(%s): %v, want ErrStream naming %s", path, err, fifo)
		}
	}
}
