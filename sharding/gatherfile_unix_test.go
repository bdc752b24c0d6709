//go:build unix

package sharding

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestGatherOutdirOutputs: GatherOutdir writes OUT as convert does, so Go and Python
// callers get what the command gives: a symlink stays a link with the file at its
// target, and a FIFO is streamed into, with the bytes of a plain file's gather.
func TestGatherOutdirOutputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, err := Convert(ConvertOptions{Checkpoint: filepath.Join(fixtureDir, "mesh2d_both.safetensors"), Out: out,
		Mesh: "data=2,model=4", Spec: `P("data", "model")`, To: "tpu:v5e"}); err != nil {
		t.Fatal(err)
	}
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

	fifo := filepath.Join(dir, "fifo.safetensors")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
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
