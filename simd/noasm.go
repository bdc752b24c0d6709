//go:build !amd64 || !gc || purego || noasm

package simd

// This file is the exact negation of the assembly build constraint: no
// vector implementation is registered and Default returns Generic.

const asmEnabled = false
