package buffer

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
