//go:build unix

package convert

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

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
	nul := filepath.Join(dir, "nul.hlo")
	if err := os.WriteFile(nul, []byte("HloModule m\n\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadModule(nul); err == nil || !strings.Contains(err.Error(), "byte 12 is NUL") {
		t.Errorf("%s: %v", nul, err)
	}
	// A stream longer than the limit stops at limit+1 bytes.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write([]byte(strings.Repeat("a", 5000)))
	}()
	if _, err := ReadTextFile(fifo, "MODULE", 1000); err == nil || !strings.Contains(err.Error(), "larger than the limit of") {
		t.Errorf("FIFO: %v", err)
	}
	// At the limit exactly, the whole text comes back.
	exact := filepath.Join(dir, "exact.txt")
	if err := os.WriteFile(exact, []byte(strings.Repeat("b", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadTextFile(exact, "MODULE", 1000); err != nil || len(b) != 1000 {
		t.Errorf("exact: %d bytes, %v", len(b), err)
	}
}
