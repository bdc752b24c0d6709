//go:build unix

package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestConvertToFIFO checks that a FIFO OUT gets the image streamed into it and stays
// a FIFO, for a single convert and band by band.
func TestConvertToFIFO(t *testing.T) {
	want := readFile(t, outWant)
	for _, band := range []int64{1, 1 << 40} {
		setBand(t, band)
		dir := t.TempDir()
		fifo := filepath.Join(dir, "pipe")
		got := readFIFO(t, fifo)
		mustRun(t, "convert", outIn, fifo, "--to", outTo)
		if b := <-got; !bytes.Equal(b, want) {
			t.Errorf("band %d: the FIFO carried %d bytes, want the %d of %s", band, len(b), len(want), outWant)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("band %d: OUT is no longer a FIFO (%v)", band, err)
		}
		if names := testfiles.DirNames(t, dir); len(names) != 1 {
			t.Errorf("band %d: directory holds %q", band, names)
		}
	}
}

// readFIFO makes a FIFO at path and reads it whole in the background: the channel
// gets what was written once the writer closes it (nil if it could not be opened).
// It skips the test where FIFOs cannot be made.
func readFIFO(t *testing.T, path string) <-chan []byte {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	return got
}
