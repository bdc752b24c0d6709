package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPaddingOnlyHugeOut: bf16[5] into one tile of 2^28 elements (512 MiB of padding)
// held the whole OUT in memory; it is written around the data now (a sparse file for
// zero padding), with the data at the front and zeros after.
func TestPaddingOnlyHugeOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.raw")
	writeText(t, in, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a")
	out := filepath.Join(dir, "out.bin")
	savedFree := freeDiskSpace
	defer func() { freeDiskSpace = savedFree }()
	freeDiskSpace = func(string) (int64, bool) { return 0, false } // a hole takes no space
	savedMem := availableMemory
	defer func() { availableMemory = savedMem }()
	availableMemory = func() (int64, bool) { return 64 << 20, true } // the whole image is 512 MiB
	mustRun(t, "convert", in, out, "--from", "bf16[5]", "--to", "bf16[5]{0:T(268435456)}")
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if st.Size() != 1<<29 {
		t.Fatalf("OUT has %d bytes, want %d", st.Size(), 1<<29)
	}
	head := make([]byte, 16)
	f.ReadAt(head, 0)
	if !bytes.Equal(head, []byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x00\x00\x00\x00\x00\x00")) {
		t.Errorf("OUT starts % x", head)
	}
	tail := make([]byte, 4096)
	f.ReadAt(tail, st.Size()-4096)
	if bytes.Count(tail, []byte{0}) != len(tail) {
		t.Error("OUT's padding is not zero")
	}
}
