//go:build amd64 && gc && !purego && !noasm

package simd

import (
	"math/rand/v2"
	"testing"
)

// TestAlignHead checks that the non-temporal transposes of 32- and 16-bit elements on
// destination rows a multiple of 64 bytes apart hand the narrower set just the source
// rows up to the next boundary, whenever the misalignment is whole elements.
func TestAlignHead(t *testing.T) {
	buf := make([]byte, 4096)
	base := int(-addr64(buf) & 63)
	for _, w := range []int{4, 2} {
		for m := range 64 {
			dst := buf[base+(64-m)%64:] // m bytes before a boundary
			h := avx512Set.alignHead(w, dst, 128, 100, 10, true)
			want := 0
			if m%w == 0 {
				want = m / w
			}
			if h != want {
				t.Errorf("w=%d m=%d: head of %d rows, want %d", w, m, h, want)
			}
			if h > 0 && addr(&dst[h*w])%64 != 0 {
				t.Errorf("w=%d m=%d: rows after the head start off a boundary", w, m)
			}
			if avx512Set.alignHead(w, dst, 100, 100, 10, true) != 0 || avx512Set.alignHead(w, dst, 128, 100, 10, false) != 0 {
				t.Errorf("w=%d m=%d: head with a stride off 64 bytes or without non-temporal stores", w, m)
			}
		}
	}
}

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

// TestAheadOtherHint runs TestRows' checks of the packings that ask ahead on the sets
// built with the other prefetch hint (PREFETCHT1 on this AMD CPU, PREFETCHNTA on an
// Intel one), whose kernels TestRows does not reach here.
func TestAheadOtherHint(t *testing.T) {
	prefetchToL2 = !prefetchToL2
	var sets []*Kernels
	for _, s := range []*asmSet{avx2Set, avx512Set} {
		if s.vw == 32 && cpuAVX2 || s.vw == 64 && cpuAVX512 {
			sets = append(sets, s.kernels())
		}
	}
	prefetchToL2 = !prefetchToL2
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range rowsCases {
		if c.name != "Interleave16" && c.name != "Interleave8x4" {
			continue
		}
		for _, k := range sets {
			for _, n := range testLengths[:30] {
				rows := Rows{N: 1 + r.IntN(5), Hints: Hints{Stream: r.IntN(2) == 0, Ahead: 4096}}
				checkRowsCase(t, c, k, r, n, rows, r.IntN(70), r.IntN(70), false)
			}
		}
	}
}
