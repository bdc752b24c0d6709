package buffer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileAtomicFileNamed: the errors of a write into a directory that becomes
// another call the file by its name there, in their text and in the Path of the
// *fs.PathError they wrap; the temporary file beside it too.
func TestWriteFileAtomicFileNamed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	shown := filepath.Join("final", "x.bin")
	err := WriteFileAtomicFileNamed(filepath.Join(dir, "x.bin"), shown, func(*os.File) error { return nil })
	var pe *fs.PathError
	if !errors.As(err, &pe) || filepath.Dir(pe.Path) != "final" || !strings.HasPrefix(filepath.Base(pe.Path), ".x.bin.tmp") {
		t.Fatalf("%#v", err)
	}
	if !strings.HasPrefix(err.Error(), "buffer: write "+shown+": ") || strings.Contains(err.Error(), dir) {
		t.Errorf("%v", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v is not ErrNotExist", err)
	}
}
