package buffer

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestRawRoundTrip(t *testing.T) {
	dir := t.TempDir()
	sh := layout.MustParse("bf16[17,130]{1,0:T(8,128)(2,1)}")
	b := MustNew(sh)
	for i := range b.Data {
		b.Data[i] = byte(i * 7)
	}
	p := filepath.Join(dir, "dump.bin")
	if err := WriteRaw(p, b); err != nil {
		t.Fatal(err)
	}
	for _, threshold := range []int64{-1, 0, 1 << 40} {
		old := MmapThreshold
		MmapThreshold = threshold
		r, err := ReadRaw(p, sh)
		MmapThreshold = old
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.Data, b.Data) || r.Mapped() != (threshold == 0) {
			t.Fatalf("threshold %d: data differs or Mapped() = %v", threshold, r.Mapped())
		}
		wasMapped := r.Mapped()
		if err := r.Close(); err != nil || wasMapped && r.Data != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := r.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	// Wrong size: the error names both sizes.
	_, err := ReadRaw(p, layout.MustParse("bf16[16,128]{1,0:T(8,128)(2,1)}"))
	if !errors.Is(err, ErrSize) || !strings.Contains(err.Error(), "4096") || !strings.Contains(err.Error(), "12288") {
		t.Fatalf("wrong size: %v", err)
	}
	if _, err := ReadRaw(filepath.Join(dir, "missing"), sh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := ReadRaw(p, layout.MustParse("(f32[2])")); !errors.Is(err, ErrShape) {
		t.Fatalf("tuple: %v", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFileAtomic(p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Fatalf("file changed to %q after a failed write", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
	if err := WriteFileAtomic(p, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v", got, st.Mode())
	}
	// A new file; a directory that does not exist.
	q := filepath.Join(dir, "fresh")
	if err := WriteFileAtomic(q, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(q); st.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v", st.Mode())
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such"), func(w io.Writer) error { return nil }); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

// TestWriteFileAtomicPanic checks that a panic in the writer removes the temporary file
// and leaves the old file as it was (a deferred cleanup that tested err == nil missed it).
func TestWriteFileAtomicPanic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the writer's panic", r)
			}
		}()
		WriteFileAtomicFile(p, func(f *os.File) error {
			f.Write([]byte("partial"))
			panic("boom")
		})
	}()
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("file changed to %q after a panicking write", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}
