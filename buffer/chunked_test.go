package buffer

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// callSizes records the size of every call it gets.
type callSizes struct {
	bytes.Buffer
	sizes []int
}

func (c *callSizes) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	return c.Buffer.Write(p)
}

func TestChunkedWriterPieces(t *testing.T) {
	p := make([]byte, 2*WriteChunk+123)
	for i := range p {
		p[i] = byte(i * 7)
	}
	var w callSizes
	n, err := ChunkedWriter{&w}.Write(p)
	if err != nil || n != len(p) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(p))
	}
	if !bytes.Equal(w.Bytes(), p) {
		t.Fatal("bytes differ")
	}
	want := []int{WriteChunk, WriteChunk, 123}
	if len(w.sizes) != len(want) || w.sizes[0] != want[0] || w.sizes[1] != want[1] || w.sizes[2] != want[2] {
		t.Fatalf("calls of %v bytes, want %v", w.sizes, want)
	}
}

func TestChunkedWriterAt(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 3*WriteChunk+5)
	for i := range p {
		p[i] = byte(i*13 + 1)
	}
	if n, err := (ChunkedWriter{f}).WriteAt(p, 17); err != nil || n != len(p) {
		t.Fatalf("WriteAt = %d, %v", n, err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 17+len(p) || !bytes.Equal(got[17:], p) || !bytes.Equal(got[:17], make([]byte, 17)) {
		t.Fatal("file differs from what was written")
	}
	if _, err := (ChunkedWriter{&bytes.Buffer{}}).WriteAt(p, 0); err == nil {
		t.Fatal("WriteAt on a writer without WriteAt: no error")
	}
}

// stuck accepts a few bytes of each call and reports no error, or fails after limit bytes.
type stuck struct {
	n, limit int
}

func (s *stuck) Write(p []byte) (int, error) {
	if s.limit > 0 {
		m := min(len(p), s.limit-s.n)
		s.n += m
		if m < len(p) {
			return m, io.ErrClosedPipe
		}
		return m, nil
	}
	return min(len(p), 3), nil
}

func TestChunkedWriterShort(t *testing.T) {
	p := make([]byte, WriteChunk+10)
	if n, err := (ChunkedWriter{&stuck{}}).Write(p); !errors.Is(err, io.ErrShortWrite) || n != 3 {
		t.Fatalf("short write: %d, %v; want 3, io.ErrShortWrite", n, err)
	}
	if n, err := (ChunkedWriter{&stuck{limit: WriteChunk + 4}}).Write(p); !errors.Is(err, io.ErrClosedPipe) || n != WriteChunk+4 {
		t.Fatalf("failing write: %d, %v; want %d, io.ErrClosedPipe", n, err, WriteChunk+4)
	}
}

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
