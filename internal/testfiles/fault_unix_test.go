//go:build unix

package testfiles

import (
	"runtime/debug"
	"testing"
)

var sink byte

// Reading the mapping faults: with SetPanicOnFault, a panic the test recovers.
func TestFaultingMapping(t *testing.T) {
	m := FaultingMapping(t, 1<<16)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r == nil {
			t.Error("no fault")
		}
	}()
	sink = m[len(m)/2]
	t.Error("read a byte of the mapping without a fault")
}
