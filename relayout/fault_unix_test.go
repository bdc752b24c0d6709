//go:build unix

package relayout

import (
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestFaultPanics: a mapped source whose file is truncated faults. In a worker that
// was a panic raised in the caller, but on the calling goroutine (one worker, or its
// own range) it killed the process ("fatal error: fault", SIGBUS). Both must be
// panics the caller can recover, with the faulting address.
func TestFaultPanics(t *testing.T) {
	const n = 1 << 20
	src := testfiles.FaultingMapping(t, n)
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
