//go:build amd64 && gc && !purego && !noasm

package simd

import "testing"

// TestF8To16Arithmetic runs TestF8To16's checks on the AVX-512 set without its VBMI
// lookups, the kernels that CPUs without VBMI take (on this one, the lookups if it has
// VBMI; TestF8To16 covers those).
func TestF8To16Arithmetic(t *testing.T) {
	if !cpuAVX512 {
		t.Skip("no AVX-512")
	}
	s := *avx512Set
	s.rows.f8To16VBMI, s.rowsNT.f8To16VBMI = [4]asm2{}, [4]asm2{}
	checkF8To16(t, s.kernels())
	if cpuVBMI && avx512Set.rows.f8To16VBMI[0] == nil {
		t.Error("the CPU has VBMI but the AVX-512 set has no lookup kernels")
	}
}
