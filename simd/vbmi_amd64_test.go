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
	s.rows.convVBMI, s.rowsNT.convVBMI = [nDTypes][nDTypes]asm2{}, [nDTypes][nDTypes]asm2{}
	s.rows.unpack4VBMI, s.rowsNT.unpack4VBMI = [nDTypes][nDTypes]asm5{}, [nDTypes][nDTypes]asm5{}
	k := s.kernels()
	if k.F8QuadsTo16Kernel {
		t.Error("F8QuadsTo16Kernel without the VBMI kernels")
	}
	checkF8To16(t, k)
	if cpuVBMI && (avx512Set.rows.convVBMI[F8E4M3FN][BF16] == nil || !Default().F8QuadsTo16Kernel) {
		t.Error("the CPU has VBMI but the AVX-512 set has no lookup kernels")
	}
}
