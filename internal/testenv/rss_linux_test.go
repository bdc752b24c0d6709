package testenv

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Reading a mapped file of 64 MiB raises resident file memory by about that much;
// doing nothing raises it by far less. FileRise passes on what fn returns.
func TestPeakRSSFileRise(t *testing.T) {
	const size = 64 << 20
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(m)
	idle, err := PeakRSSFileRise(func() {})
	if err != nil {
		t.Skipf("/proc/self/status: %v", err)
	}
	sum, touched, err := FileRise(t, func() (byte, error) {
		var sum byte
		for i := 0; i < size; i += 4096 {
			sum += m[i]
		}
		return sum, os.ErrClosed
	})
	if err != os.ErrClosed || sum != 0 {
		t.Fatal(err, sum)
	}
	if idle > size/4 || touched < size/2 {
		t.Errorf("rise %d doing nothing, %d reading %d mapped bytes", idle, touched, size)
	}
}
