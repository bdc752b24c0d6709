//go:build race

package simd

import (
	"runtime"
	"unsafe"
)

// raceEnabled is true in -race builds. The assembly wrappers then report the
// memory the assembly reads and writes, which the race detector cannot see.
const raceEnabled = true

func raceRead(b []byte) {
	if len(b) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&b[0]), len(b))
	}
}

func raceWrite(b []byte) {
	if len(b) > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(&b[0]), len(b))
	}
}
