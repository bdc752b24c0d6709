package simd

import (
	"math/bits"
	"unsafe"
)

func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

// wraps4 is an element count whose byte size at 4 bytes an element wraps
// around to 64 on this platform's int; hugeStride is a stride no slice spans.
const (
	wraps4     = 1<<(bits.UintSize-2) + 16
	hugeStride = 1 << (bits.UintSize - 2)
)
