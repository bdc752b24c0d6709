package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestJoinNibbleWordsRows checks JoinNibbleWordsRows of every implementation against
// its definition element by element, as TestSplitNibbleWordsRows checks its inverse:
// a call's eight source rows far apart with the calls side by side, or together;
// destination gaps that must stay as they were, unaligned starts, non-temporal stores
// asked for on aligned and unaligned destinations, and source bytes above 4 bits.
func TestJoinNibbleWordsRows(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 1))
	for _, k := range Available() {
		for _, n := range testLengths[:34] {
			for _, interleaved := range []bool{true, false} {
				calls := r.IntN(5)
				gap := r.IntN(3) * 64 * b2i(r.IntN(2) == 0)
				if r.IntN(3) == 0 {
					gap += 1 + r.IntN(63)
				}
				var rs Rows
				var rowStride int
				if interleaved {
					rs.SrcStride = n + r.IntN(9)
					rowStride = max(calls, 1)*rs.SrcStride + r.IntN(9)
				} else {
					rowStride = n + r.IntN(9)
					rs.SrcStride = 8*rowStride + r.IntN(9)
				}
				rs.N, rs.DstStride, rs.Stream = calls, 4*n+gap, r.IntN(2) == 0
				off := testOffsets[r.IntN(len(testOffsets))]
				name := fmt.Sprintf("%s/n=%d/calls=%d/rowStride=%d/srcStride=%d/off=%d/stream=%v", k.Name, n, calls, rowStride, rs.SrcStride, off, rs.Stream)
				dlen, slen := 0, 0
				if calls > 0 {
					dlen, slen = (calls-1)*rs.DstStride+4*n, (calls-1)*rs.SrcStride+7*rowStride+n
				}
				g := newGuarded(dlen, off)
				src := randBytes(r, slen)
				dst := g.b()
				k.JoinNibbleWordsRows(dst, src, rowStride, n, rs)
				k.Fence()
				g.checkGuards(t, name)
				want := make([]byte, dlen)
				for i := range want {
					want[i] = guardByte
				}
				for j := range calls {
					for i := range n {
						for b := range 4 {
							s := j*rs.SrcStride + 2*b*rowStride + i
							want[j*rs.DstStride+4*i+b] = src[s]&15 | src[s+rowStride]<<4
						}
					}
				}
				for i := range want {
					if dst[i] != want[i] {
						t.Fatalf("%s: byte %d = %#x, want %#x", name, i, dst[i], want[i])
					}
				}
			}
		}
	}
}

// TestJoinNibbleWordsRowsPanics checks that short operands panic before any store.
func TestJoinNibbleWordsRowsPanics(t *testing.T) {
	for _, k := range Available() {
		for _, c := range []struct {
			name             string
			dst, src, stride int
		}{
			{"short dst", 4*64 - 1, 7*100 + 64, 100},
			{"short src", 4 * 64, 7*100 + 63, 100},
			{"huge stride", 4 * 64, 1 << 20, math.MaxInt / 2}, // 7 strides overflow int
			{"negative stride", 4 * 64, 1 << 20, -1},
		} {
			dst := make([]byte, c.dst)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: %s: no panic", k.Name, c.name)
					}
				}()
				k.JoinNibbleWordsRows(dst, make([]byte, c.src), c.stride, 64, Rows{N: 1})
			}()
			for i, b := range dst {
				if b != 0 {
					t.Fatalf("%s: %s: byte %d written before the panic", k.Name, c.name, i)
				}
			}
		}
	}
}
