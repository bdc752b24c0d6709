package buffer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
)

// Comparing two mapped files keeps a few windows of them resident, not their size:
// the pages are released as the comparison goes.
func TestCompareMappedStaysFlat(t *testing.T) {
	const size = 64 << 20
	shape := layout.MustParse("f32[4096,4096]{1,0}")
	dir := t.TempDir()
	data := bytes.Repeat([]byte{0, 0, 0x80, 0x3f}, size/4) // 1.0
	var bufs []*Buffer
	for _, name := range []string{"a.raw", "b.raw"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadRaw(p, shape)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if !b.Mapped() {
			t.Skip("not mapped here")
		}
		bufs = append(bufs, b)
	}
	data = nil
	r, peak, ferr := testenv.FileRise(t, func() (*CompareResult, error) { return Compare(bufs[0], bufs[1], CompareOptions{}) })
	if ferr != nil || r.Identical != 4096*4096 {
		t.Fatalf("Compare: %+v, %v", r, ferr)
	}
	if peak > 3*releaseBytes {
		t.Errorf("comparing two mapped files of %d MiB: resident file memory rose by %d MiB, want at most %d",
			size>>20, peak>>20, 3*releaseBytes>>20)
	}
	t.Logf("peak rise %d MiB", peak>>20)
}
