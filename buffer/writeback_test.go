package buffer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStartWriteback: a file written through ChunkedWriter (which starts its
// writeback) holds its bytes; a pipe and a writer that is not a file are left alone,
// the pipe still usable with deadlines.
func TestStartWriteback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 3*WriteChunk/16+5)
	if _, err := (ChunkedWriter{f}).Write(want[:WriteChunk+7]); err != nil {
		t.Fatal(err)
	}
	if _, err := (ChunkedWriter{f}).WriteAt(want[WriteChunk+7:], WriteChunk+7); err != nil {
		t.Fatal(err)
	}
	StartWriteback(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatal("file differs from what was written")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	StartWriteback(w)
	if err := w.SetWriteDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Errorf("the pipe after StartWriteback: %v", err)
	}
	StartWriteback(&bytes.Buffer{})
}
