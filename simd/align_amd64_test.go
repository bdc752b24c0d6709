//go:build amd64 && gc && !purego && !noasm

package simd

import "testing"

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
