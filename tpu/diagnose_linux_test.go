package tpu

import (
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// Diagnosing a mapped image against a mapped reference keeps a few dozen MiB of them
// resident, not their size, though some candidates (transposed) read all over the image.
func TestDiagnoseMappedStaysFlat(t *testing.T) {
	const size = 32 << 20
	old := buffer.MmapThreshold
	buffer.MmapThreshold = 0
	defer func() { buffer.MmapThreshold = old }()
	dir := t.TempDir()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>13)
	}
	bufs := testfiles.MappedRaw(t, dir, data, "f32[2048,4096]{1,0:T(8,128)}", "f32[2048,4096]{1,0}")
	data = nil
	d, peak, ferr := testenv.FileRise(t, func() (*Diagnosis, error) { return Diagnose(bufs[0], bufs[1], CheckOptions{}) })
	if ferr != nil {
		t.Fatal(ferr)
	}
	if d.Best.Arrangement == ArrDeclared || d.Best.Matched != d.Best.Compared {
		t.Errorf("diagnosis %+v, want an arrangement that explains every element (row-major)", d.Best)
	}
	if limit := int64(40 << 20); peak > limit {
		t.Errorf("diagnosing mapped files of %d MiB: resident file memory rose by %d MiB, want at most %d",
			size>>20, peak>>20, limit>>20)
	}
	t.Logf("peak rise %d MiB", peak>>20)
}
