//go:build unix

package sharding

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// truncWriter truncates files to 0 bytes at its second Write (the first rows, after
// the header): the shards they are are mapped by then, and read on.
type truncWriter struct {
	files  []string
	writes int
}

func (w *truncWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == 2 {
		for _, f := range w.files {
			if err := os.Truncate(f, 0); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// TestGatherTruncatedShard: a shard image truncated while gather reads its mapping
// (SIGBUS, which kills a Go program) is an error naming the file; one shorter than the
// manifest says before it is opened is an error with both sizes.
func TestGatherTruncatedShard(t *testing.T) {
	saved := gatherBandBytes
	defer func() { gatherBandBytes = saved }()
	gatherBandBytes = 4096 // many bands: the rows buffers run out before the truncation
	dir := t.TempDir()
	ckpt, _ := randomCheckpoint(t, dir, 256, 512)
	out := filepath.Join(dir, "out")
	if _, err := Convert(ConvertOptions{Checkpoint: ckpt, Out: out, Mesh: "data=2,model=2", Spec: `P("data", "model")`, To: "tpu:v5e"}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(out, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var first []string // the shards of the first rows
	for _, s := range m.Tensors[0].Shards {
		if s.Index[0] == 0 {
			first = append(first, filepath.Join(out, s.File))
		}
	}
	_, err = GatherTo(&truncWriter{files: first}, out)
	if !errors.Is(err, buffer.ErrFault) || !strings.Contains(err.Error(), ".bin") {
		t.Fatalf("gather of a shard truncated under it: %v, want a memory-fault error naming the file", err)
	}
	_, err = Gather(out, filepath.Join(dir, "g.safetensors"))
	if err == nil || !strings.Contains(err.Error(), "has 0 bytes, the manifest says") {
		t.Errorf("gather of a short shard: %v", err)
	}
}
