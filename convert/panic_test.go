package convert

import (
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// panicProgress panics when it hears bytes written, as a display whose writer fails might.
type panicProgress struct{ noProgress }

func (panicProgress) Add(int64) { panic("panicProgress") }

// outTo is a device layout of the arrays the tests convert.
const outTo = "bf16[20,300]{1,0:T(8,128)(2,1)}"

// TestPanicRemovesTemp checks that a panic while Out is written (here from Progress,
// after the first band) removes the temporary file, and that a source whose bytes are
// shorter than its shape is an error and not a panic.
func TestPanicRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	defer func(m int64) { buffer.MmapThreshold = m }(buffer.MmapThreshold)
	buffer.MmapThreshold = 0
	j := &Job{Out: filepath.Join(dir, "out.bin"), Limits: Limits{BandBytes: 1}}
	src := testfiles.RandomBuffer(t, "f32[20,300]", 1)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic from Progress")
			}
		}()
		j.writeArray(nil, mustCompile(t, outTo), src, nil, panicProgress{})
	}()
	short := testfiles.RandomBuffer(t, "f32[20,300]", 1)
	short.Data = short.Data[: len(short.Data)/2 : len(short.Data)/2]
	if _, err := j.writeArray(nil, mustCompile(t, outTo), short, nil, nil); err == nil {
		t.Error("a short source converts")
	}
	if names := testfiles.DirNames(t, dir); len(names) != 0 {
		t.Errorf("a panicking job left %q", names)
	}
}

// mustCompile compiles the shape text s.
func mustCompile(t *testing.T, s string) *layout.Indexer {
	t.Helper()
	ix, err := layout.Compile(layout.MustParse(s))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
