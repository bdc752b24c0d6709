//go:build unix

package convert

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// fifoWith makes a FIFO at path and writes data into it from a goroutine (the
// reader's open unblocks it); the returned function waits for the writer.
func fifoWith(t *testing.T, path string, data []byte) func() {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data) // a reader that stops early makes this fail: the test says so
		f.Close()
	}()
	return func() { <-done }
}

// An In that is a FIFO is read as a stream, like "-": the same bytes give the same
// image, whatever its name says, and never "0 bytes" (issue 44.9).
func TestJobInFIFO(t *testing.T) {
	dir := t.TempDir()
	src := testfiles.RandomBuffer(t, "f32[8,128]", 2)
	npyBytes, _ := os.ReadFile(testfiles.WriteNPY(t, dir, "in.npy", src))
	to := "f32[8,128]{0,1:T(8,128)}"
	for _, name := range []string{"pipe.npy", "pipe"} { // by its name, or by its first bytes
		in, out := filepath.Join(dir, name), filepath.Join(dir, name+".bin")
		wait := fifoWith(t, in, npyBytes)
		r, err := (&Job{In: in, Out: out, To: to}).Run()
		wait()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkImage(t, out, r.Shape, src)
	}
	// Raw bytes from a FIFO with From: the .npy's data, little-endian f32.
	data := npyBytes[len(npyBytes)-8*128*4:]
	raw := filepath.Join(dir, "raw")
	wait := fifoWith(t, raw, data)
	r, err := (&Job{In: raw, Out: filepath.Join(dir, "raw.bin"), From: "f32[8,128]", To: to}).Run()
	wait()
	if err != nil {
		t.Fatalf("raw: %v", err)
	}
	checkImage(t, filepath.Join(dir, "raw.bin"), r.Shape, src)
	// A short stream is named as In, by its size.
	short := filepath.Join(dir, "short")
	wait = fifoWith(t, short, data[:100])
	_, err = (&Job{In: short, Out: filepath.Join(dir, "short.bin"), From: "f32[8,128]", To: to}).Run()
	wait()
	if err == nil || !strings.Contains(err.Error(), "In "+short+" has 100 bytes") {
		t.Errorf("short raw stream: %v, want an error naming %s and its 100 bytes", err, short)
	}
	// All records In: a stream is refused before it is read.
	all := filepath.Join(dir, "all.safetensors")
	if err := syscall.Mkfifo(all, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = (&Job{In: all, Out: filepath.Join(dir, "od"), All: true, To: "tpu:v5e"}).Run()
	if err == nil || !strings.Contains(err.Error(), "is not a regular file but a stream") || KindOf(err) != Setting {
		t.Errorf("All from a FIFO: %v", err)
	}
	if !bytes.Equal(npyBytes[:6], []byte("\x93NUMPY")) {
		t.Fatal("the .npy fixture lacks NumPy's magic")
	}
}

// TestReadTextFileBounded: a text file over the limit, or one that is not text, is
// refused without reading it whole: a regular file by its size, a stream as soon as it
// passes the limit or sends a NUL byte (/dev/zero was read to 256 MiB first).
func TestReadTextFileBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hlo")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file one byte over the limit: refused by its size, before any read.
	if err := f.Truncate(MaxModuleBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadModule(big); err == nil || !strings.Contains(err.Error(), "larger than the limit of 256.00 MiB") {
		t.Errorf("%s: %v", big, err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadModule("/dev/zero"); err == nil || !strings.Contains(err.Error(), "byte 0 is NUL: it is not a text file") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	nul := testfiles.WriteFile(t, dir, "nul.hlo", []byte("HloModule m\n\x00"))
	if _, err := ReadModule(nul); err == nil || !strings.Contains(err.Error(), "byte 12 is NUL") {
		t.Errorf("%s: %v", nul, err)
	}
	// A stream longer than the limit stops at limit+1 bytes.
	fifo := filepath.Join(dir, "fifo")
	wait := fifoWith(t, fifo, []byte(strings.Repeat("a", 5000)))
	if _, err := ReadTextFile(fifo, "MODULE", 1000); err == nil || !strings.Contains(err.Error(), "larger than the limit of") {
		t.Errorf("FIFO: %v", err)
	}
	wait()
	// At the limit exactly, the whole text comes back.
	exact := testfiles.WriteFile(t, dir, "exact.txt", []byte(strings.Repeat("b", 1000)))
	if b, err := ReadTextFile(exact, "MODULE", 1000); err != nil || len(b) != 1000 {
		t.Errorf("exact: %d bytes, %v", len(b), err)
	}
}

// TestWithModuleTruncated: a module file truncated by another process while its
// mapped text is read is an error naming the file, not a crash (SIGBUS); and a file
// that is mapped is read from the mapping, not copied.
func TestWithModuleTruncated(t *testing.T) {
	var b strings.Builder
	b.WriteString("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n")
	for i := 0; b.Len() < 3*os.Getpagesize(); i++ {
		fmt.Fprintf(&b, "  n%d = f32[8]{0} negate(p)\n", i)
	}
	b.WriteString("  ROOT r = f32[8]{0} copy(p)\n}\n")
	path := testfiles.WriteFile(t, t.TempDir(), "m.hlo", []byte(b.String()))
	err := WithModule(path, func(m *hlo.Module) error {
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		_ = strings.Clone(m.Entry.Root.Name) // on the last page, gone now
		return nil
	})
	want := "cannot read MODULE " + path + ": it shrank or failed while it was read (it has 0 bytes now)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
