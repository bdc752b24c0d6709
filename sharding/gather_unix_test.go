//go:build unix

package sharding

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// TestGatherOutdirOutputs: GatherOutdir writes OUT as convert does, so Go and Python
// callers get what the command gives: a symlink stays a link with the file at its
// target, and a FIFO is streamed into, with the bytes of a plain file's gather.
func TestGatherOutdirOutputs(t *testing.T) {
	dir, _, out := convertMesh2D(t)
	plain := filepath.Join(dir, "plain.safetensors")
	if _, err := GatherOutdir(out, plain); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(plain)

	target, link := filepath.Join(dir, "target.safetensors"), filepath.Join(dir, "link.safetensors")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := GatherOutdir(out, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, want) {
		t.Errorf("the link's target holds %d bytes, want the %d of a plain gather", len(got), len(want))
	}

	fifo := mkfifo(t, filepath.Join(dir, "fifo.safetensors"))
	read := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			read <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		read <- b
	}()
	if _, err := GatherOutdir(out, fifo); err != nil {
		t.Fatalf("gather into a FIFO: %v", err)
	}
	if got := <-read; !bytes.Equal(got, want) {
		t.Errorf("the FIFO carried %d bytes, want the %d of a plain gather", len(got), len(want))
	}

	var buf bytes.Buffer
	o, err := OpenOutdir(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.GatherFile("-", &buf); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("gather to stdout: %v, %d bytes, want %d", err, buf.Len(), len(want))
	}
}

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
