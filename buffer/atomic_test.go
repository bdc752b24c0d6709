package buffer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// countSyncs counts the files fsynced through syncFile until the returned func.
func countSyncs(t *testing.T) (names *[]string) {
	var got []string
	var mu sync.Mutex // Wait syncs in parallel
	saved := syncFile
	syncFile = func(f *os.File) error {
		mu.Lock()
		defer mu.Unlock()
		name := filepath.Base(f.Name())
		if tmp, ok := strings.CutPrefix(name, "."); ok { // a temporary: the name it gets
			name = tmp[:strings.Index(tmp, ".tmp")]
		}
		got = append(got, name)
		return saved(f)
	}
	t.Cleanup(func() { syncFile = saved })
	return &got
}

// TestSyncBatch: under a batch's directory WriteFileAtomic writes and renames each
// file but syncs none; Wait syncs them all (and a file added by hand), once; outside
// the directory, and after Wait, each file is synced as it is written.
func TestSyncBatch(t *testing.T) {
	synced := countSyncs(t)
	top := t.TempDir()
	dir := filepath.Join(top, "tmp")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			t.Fatal(err)
		}
	}
	b := DeferSync(dir)
	write(filepath.Join(dir, "a.bin"), "a")
	write(filepath.Join(dir, "sub", "b.bin"), "b")
	write(filepath.Join(top, "outside.bin"), "o")
	if !slices.Equal(*synced, []string{"outside.bin"}) || len(b.paths) != 2 {
		t.Fatalf("before Wait: synced %v, batch %v; want only outside.bin synced, 2 in the batch", *synced, b.paths)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "b.bin")); string(got) != "b" {
		t.Fatalf("sub/b.bin holds %q before Wait", got)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{}"), 0o644)
	b.Add(filepath.Join(dir, "manifest.json"))
	*synced = nil
	if err := b.Wait(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(*synced)
	if !slices.Equal(*synced, []string{"a.bin", "b.bin", "manifest.json"}) {
		t.Errorf("Wait synced %v", *synced)
	}
	*synced = nil
	write(filepath.Join(dir, "c.bin"), "c") // the batch is over
	if !slices.Equal(*synced, []string{"c.bin"}) {
		t.Errorf("after Wait: synced %v, want c.bin", *synced)
	}
}

// TestSyncBatchErrors: a file gone before Wait is Wait's error; a failed write under
// a batch leaves nothing, as without one; Cancel syncs nothing.
func TestSyncBatchErrors(t *testing.T) {
	synced := countSyncs(t)
	dir := t.TempDir()
	b := DeferSync(dir)
	boom := errors.New("boom")
	err := WriteFileAtomic(filepath.Join(dir, "x.bin"), func(w io.Writer) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("a failed write: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a failed write left %v", ents)
	}
	b.Add(filepath.Join(dir, "gone.bin"))
	if err := b.Wait(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Wait with a file gone: %v", err)
	}
	c := DeferSync(dir)
	c.Add(filepath.Join(dir, "gone.bin"))
	c.Cancel()
	if len(*synced) != 0 {
		t.Errorf("synced %v", *synced)
	}
	if batchFor(filepath.Join(dir, "y.bin")) != nil {
		t.Error("a batch outlives Cancel")
	}
}

// TestNotDurable: after SetDurable(false) nothing is synced, by WriteFileAtomic or by
// a batch's Wait, and the files are written all the same.
func TestNotDurable(t *testing.T) {
	synced := countSyncs(t)
	SetDurable(false)
	defer SetDurable(true)
	dir := t.TempDir()
	b := DeferSync(filepath.Join(dir, "batch"))
	os.Mkdir(filepath.Join(dir, "batch"), 0o755)
	for _, p := range []string{"a.bin", "batch/b.bin"} {
		if err := WriteFileAtomic(filepath.Join(dir, p), func(w io.Writer) error { _, err := io.WriteString(w, p); return err }); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, p)); string(got) != p {
			t.Errorf("%s holds %q", p, got)
		}
	}
	if err := b.Wait(); err != nil {
		t.Fatal(err)
	}
	if len(*synced) != 0 {
		t.Errorf("synced %v", *synced)
	}
}
