//go:build unix

package sharding

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// mkfifo makes a FIFO at path and returns path; it skips the test where it cannot.
func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// A checkpoint path that names a FIFO is refused as a stream, before a byte is read:
// a sharded conversion reads it by ranges and verify again later (issue 44.9: it was
// read as a file of 0 bytes). So is a FIFO among an index's files.
func TestCheckpointFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, filepath.Join(dir, "model.safetensors"))
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

// TestTruncatedSourceIsAnError: a checkpoint truncated by another process while it is
// converted killed a program using the library (SIGBUS reading the mapping); it is an
// error naming the source, and nothing is left behind.
func TestTruncatedSourceIsAnError(t *testing.T) {
	saved := buffer.MmapThreshold
	defer func() { buffer.MmapThreshold = saved }()
	buffer.MmapThreshold = 1 // map even this small source
	dir := t.TempDir()
	w := buffer.MustNew(layout.MustParse("f32[256,1024]"))
	in := testfiles.WriteCheckpoint(t, dir, "m.safetensors", safetensors.NamedBuffer{Name: "w", Buf: w})
	ckpt, err := OpenCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	mesh, _ := placement.ParseMesh("d=2", nil)
	spec, _ := placement.ParseSpec(`P("d")`)
	out := filepath.Join(dir, "out")
	// Once the first shard is written, the source shrinks under the second.
	truncate := func(string, int64) {
		if err := os.Truncate(in, 4096); err != nil {
			t.Fatal(err)
		}
	}
	_, err = convertDir(ckpt, out, jobOptions{Mesh: mesh, To: "f32", Written: truncate,
		SpecFor: specAll(spec), Target: asIs})
	if !errors.Is(err, buffer.ErrFault) {
		t.Fatalf("ConvertDir of a truncated source: %v, want a memory-fault error", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d entries beside the source", len(ents)-1)
	}
}
