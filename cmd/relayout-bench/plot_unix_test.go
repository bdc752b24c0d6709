//go:build unix

package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPlotOutKinds: -plot keeps tpulayout's rules for OUT. A symbolic link was replaced
// by a file, and a FIFO or /dev/stdout refused as "not a regular file".
func TestPlotOutKinds(t *testing.T) {
	d := t.TempDir()
	target, link := filepath.Join(d, "t.svg"), filepath.Join(d, "l.svg")
	os.WriteFile(target, []byte("old"), 0o644)
	if err := os.Symlink("t.svg", link); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(link, []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("-plot replaced the link (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "<svg/>" {
		t.Errorf("the link's target holds %q", b)
	}
	fifo := filepath.Join(d, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- ""
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := writeFileAtomic(fifo, []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "<svg/>" {
		t.Errorf("the FIFO carried %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("-plot replaced the FIFO (%v)", err)
	}
}
