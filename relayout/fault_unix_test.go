//go:build unix

package relayout

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFaultPanics: a mapped source whose file is truncated faults. In a worker that
// was a panic raised in the caller, but on the calling goroutine (one worker, or its
// own range) it killed the process ("fatal error: fault", SIGBUS). Both must be
// panics the caller can recover, with the faulting address.
func TestFaultPanics(t *testing.T) {
	const n = 1 << 20
	path := filepath.Join(t.TempDir(), "src.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	src, err := unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer unix.Munmap(src)
	if err := f.Truncate(0); err != nil { // every page of the mapping now faults
		t.Fatal(err)
	}
	dst := make([]byte, n)
	for _, workers := range []int{1, 4} {
		p := mustPlan(t, "f32[512,512]{1,0:T(8,128)}", "f32[512,512]", WithWorkers(workers))
		func() {
			defer func() {
				r := recover()
				if _, ok := r.(interface{ Addr() uintptr }); !ok {
					t.Errorf("workers %d: recovered %v, want a memory fault", workers, r)
				}
			}()
			p.CopyBytes(dst, src)
			t.Errorf("workers %d: CopyBytes read a truncated mapping without a fault", workers)
		}()
	}
}
