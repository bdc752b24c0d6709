package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSplitNibbleWordsRows checks SplitNibbleWordsRows of every implementation
// against its definition element by element: the two ways the nibble tiles lay
// out a batch (a call's eight rows far apart with the calls side by side, as one
// tile row after another of a group; or a call's rows together), gaps that must stay
// as they were, unaligned starts, and non-temporal stores asked for on aligned and
// unaligned destinations.
func TestSplitNibbleWordsRows(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	for _, k := range Available() {
		for _, n := range testLengths[:34] {
			for _, interleaved := range []bool{true, false} {
				calls := r.IntN(5)
				gap := r.IntN(3) * 64 * b2i(r.IntN(2) == 0) // aligned or not
				if r.IntN(3) == 0 {
					gap += 1 + r.IntN(63)
				}
				var rs Rows
				var rowStride int
				if interleaved {
					rs.DstStride = n + gap
					rowStride = max(calls, 1)*rs.DstStride + gap
				} else {
					rowStride = n + gap
					rs.DstStride = 8*rowStride + gap
				}
				rs.N, rs.SrcStride, rs.Stream = calls, 4*n+r.IntN(9), r.IntN(2) == 0
				off := testOffsets[r.IntN(len(testOffsets))]
				name := fmt.Sprintf("%s/n=%d/calls=%d/rowStride=%d/dstStride=%d/off=%d/stream=%v", k.Name, n, calls, rowStride, rs.DstStride, off, rs.Stream)
				dlen := 0
				if calls > 0 {
					dlen = (calls-1)*rs.DstStride + 7*rowStride + n
				}
				g := newGuarded(dlen, off)
				src := randBytes(r, max(calls-1, 0)*rs.SrcStride+4*n)
				dst := g.b()
				k.SplitNibbleWordsRows(dst, rowStride, src, n, rs)
				k.Fence()
				g.checkGuards(t, name)
				want := make([]byte, dlen)
				for i := range want {
					want[i] = guardByte
				}
				for j := range calls {
					for m := range 8 {
						for i := range n {
							want[j*rs.DstStride+m*rowStride+i] = src[j*rs.SrcStride+4*i+m/2] >> (4 * (m % 2)) & 15
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

// TestSplitNibbleWordsRowsPanics checks that short operands panic before any store.
func TestSplitNibbleWordsRowsPanics(t *testing.T) {
	for _, k := range Available() {
		for _, c := range []struct {
			name             string
			dst, src, stride int
		}{
			{"short dst", 7*100 + 63, 4 * 64, 100},
			{"short src", 7*100 + 64, 4*64 - 1, 100},
			{"huge stride", 1 << 20, 4 * 64, math.MaxInt / 2}, // 7 strides overflow int
			{"negative stride", 1 << 20, 4 * 64, -1},
		} {
			dst := make([]byte, c.dst)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: %s: no panic", k.Name, c.name)
					}
				}()
				k.SplitNibbleWordsRows(dst, c.stride, make([]byte, c.src), 64, Rows{N: 1})
			}()
			for i, b := range dst {
				if b != 0 {
					t.Fatalf("%s: %s: byte %d written before the panic", k.Name, c.name, i)
				}
			}
		}
	}
}
