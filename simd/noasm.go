//go:build !amd64 || !gc || purego || noasm

package simd

// This file is the exact negation of the assembly build constraint: no
// vector implementation is registered and Default returns Generic.

const asmEnabled = false

// copyStringW is never called without the assembly: no set has stringCopy.
func copyStringW(dst, src []byte) { copy(dst, src) }
