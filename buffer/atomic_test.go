package buffer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A loop of symbolic links is refused with ELOOP and stays as it was: replacing it
// would put a file where the links were (issue 44.10).
func TestWriteFileAtomicLinkLoop(t *testing.T) {
	dir := t.TempDir()
	self, a, b := filepath.Join(dir, "self"), filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, l := range [][2]string{{"self", self}, {"b", a}, {"a", b}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	for _, p := range []string{self, a} {
		err := WriteFileAtomic(p, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
		if !errors.Is(err, syscall.ELOOP) {
			t.Errorf("%s: %v, want ELOOP", p, err)
		}
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", p, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%d entries in the directory, want the 3 links", len(ents))
	}
}

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
