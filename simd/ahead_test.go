package simd

import "testing"

// A batch that cannot ask in its assembly (here the generic set's, with a Prefetch
// that counts) asks in chunks, for the span of each chunk's rows Ahead further: with
// the rows back to back, each source byte Ahead further once, nothing else.
func TestAheadChunks(t *testing.T) {
	for _, c := range []struct {
		name string
		srcs int
		run  func(k *Kernels, dst []byte, src [][]byte, n int, r Rows)
	}{
		{"Pack2", 2, func(k *Kernels, dst []byte, s [][]byte, n int, r Rows) {
			k.Pack2(Bits16, Bits16)(dst, s[0], s[1], n, r)
		}},
		{"Pack4", 4, func(k *Kernels, dst []byte, s [][]byte, n int, r Rows) {
			k.Pack4(Bits8, Bits8)(dst, s[0], s[1], s[2], s[3], n, r)
		}},
	} {
		for _, rows := range []int{1, 3, 40} {
			const stride, ahead = 256, 2048
			w := 4 / c.srcs // bytes an element of a source row
			n := stride / w // rows back to back: the chunks' spans are whole rows
			src := make([]byte, 64<<10)
			asked := make([]int, len(src))
			ks := *Generic()
			ks.Prefetch = func(b []byte) {
				for i := cap(src) - cap(b); i < cap(src)-cap(b)+len(b); i++ {
					asked[i]++
				}
			}
			addAhead(&ks, aheadAsm{}, 0)
			ops := make([][]byte, c.srcs)
			for i := range ops {
				ops[i] = src[i*16<<10:]
			}
			c.run(&ks, make([]byte, rows*4*n), ops, n, Rows{N: rows, DstStride: 4 * n, SrcStride: stride, Hints: Hints{Ahead: ahead}})
			for i, got := range asked {
				want := 0
				if o := i % (16 << 10); i < c.srcs*16<<10 && o >= ahead && (o-ahead)/stride < rows && (o-ahead)%stride < w*n {
					want = 1
				}
				if got != want {
					t.Fatalf("%s, %d rows: byte %d asked for %d times, want %d", c.name, rows, i, got, want)
				}
			}
		}
	}
}
