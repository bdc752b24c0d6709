package buffer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestReleasePages checks that released pages of a mapped buffer read back as the
// file's bytes, and that a buffer in memory keeps its bytes (advice that drops pages
// would zero anonymous memory).
func TestReleasePages(t *testing.T) {
	const n = 1 << 20
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(i*7 + i>>12)
	}
	shape := layout.NewShape(layout.U8, n)

	heap := MustNew(shape)
	copy(heap.Data, want)
	heap.ReleasePages(0, n)
	if !bytes.Equal(heap.Data, want) {
		t.Fatal("ReleasePages changed a buffer in memory")
	}

	path := filepath.Join(t.TempDir(), "a.raw")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	old := MmapThreshold
	MmapThreshold = 0
	defer func() { MmapThreshold = old }()
	b, err := ReadRaw(path, shape)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if canMap && !b.Mapped() {
		t.Fatal("ReadRaw did not map the file")
	}
	b.ReleasePages(4096+100, n/2)
	b.ReleasePages(n/2, n)
	if !bytes.Equal(b.Data, want) {
		t.Fatal("a mapped buffer reads other bytes after ReleasePages")
	}
}

// TestReadAt reads a shape's footprint at an offset of a file, read into memory and
// mapped, and checks that a range past the end of the file is an ErrSize.
func TestReadAt(t *testing.T) {
	data := make([]byte, 3000)
	for i := range data {
		data[i] = byte(i * 13)
	}
	f := openWith(t, data)
	shape := layout.MustParse("bf16[5,100]")
	old := MmapThreshold
	defer func() { MmapThreshold = old }()
	for _, threshold := range []int64{-1, 0} {
		MmapThreshold = threshold
		b, err := ReadAt(f, 1000, int64(len(data)), shape)
		if err != nil {
			t.Fatalf("threshold %d: %v", threshold, err)
		}
		if !bytes.Equal(b.Data, data[1000:2000]) || b.Mapped() != (threshold == 0 && canMap) {
			t.Errorf("threshold %d: wrong bytes, or mapped %v", threshold, b.Mapped())
		}
		b.Close()
		if _, err := ReadAt(f, 2001, int64(len(data)), shape); !errors.Is(err, ErrSize) {
			t.Errorf("threshold %d: a range past the file: %v", threshold, err)
		}
	}
	if _, err := ReadAt(f, 0, int64(len(data)), layout.Shape{Kind: layout.Tuple}); !errors.Is(err, ErrShape) {
		t.Errorf("a tuple shape: %v", err)
	}
}

// TestMapFile: MapFile maps a file below MmapThreshold, its Data the file's bytes, and
// refuses a file shorter than the footprint before mapping it.
func TestMapFile(t *testing.T) {
	want := make([]byte, 3*4096+12)
	for i := range want {
		want[i] = byte(i*5 + i>>9)
	}
	f := openWith(t, want)
	b, err := MapFile(f, layout.NewShape(layout.U8, int64(len(want))))
	if errors.Is(err, ErrNotMapped) && !canMap {
		t.Skip("no mmap here")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !b.Mapped() || !bytes.Equal(b.Data, want) {
		t.Errorf("mapped %v, bytes equal %v", b.Mapped(), bytes.Equal(b.Data, want))
	}
	b.ReleasePages(4096, 2*4096)
	if !bytes.Equal(b.Data, want) {
		t.Error("released pages read back differently")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = MapFile(f, layout.NewShape(layout.U8, int64(len(want))+1))
	if !errors.Is(err, ErrSize) {
		t.Errorf("MapFile of a short file: %v, want ErrSize", err)
	}
}

// openWith returns a file holding data, open for reading until the test ends.
func openWith(t *testing.T, data []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.raw")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
