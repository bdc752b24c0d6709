package buffer

import (
	"bytes"
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
