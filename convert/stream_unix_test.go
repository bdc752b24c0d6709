//go:build unix

package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
