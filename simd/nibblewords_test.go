package simd

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// nibbleBatch is one batch of calls of Nibbles.SplitWordsRows or Nibbles.JoinWordsRows:
// calls of n words, a call's eight rows rowStride apart and calls rowCall apart on the
// rows' side, wordCall apart on the words' side; the destination (the rows' side if
// rowsDst, else the words') off bytes past a line.
type nibbleBatch struct {
	n, calls, rowStride, rowCall, wordCall, off int
	rowsDst, stream                             bool
}

// rowsLen and wordsLen are the bytes the batch spans on each side.
func (b nibbleBatch) rowsLen() int {
	if b.calls == 0 {
		return 0
	}
	return (b.calls-1)*b.rowCall + 7*b.rowStride + b.n
}

func (b nibbleBatch) wordsLen() int {
	if b.calls == 0 {
		return 0
	}
	return (b.calls-1)*b.wordCall + 4*b.n
}

// rows is the batch as the kernels take it.
func (b nibbleBatch) rows() Rows {
	if b.rowsDst {
		return Rows{N: b.calls, DstStride: b.rowCall, SrcStride: b.wordCall, Hints: Hints{Stream: b.stream}}
	}
	return Rows{N: b.calls, DstStride: b.wordCall, SrcStride: b.rowCall, Hints: Hints{Stream: b.stream}}
}

func (b nibbleBatch) String() string {
	return fmt.Sprintf("n=%d/calls=%d/rowStride=%d/rowCall=%d/wordCall=%d/off=%d/stream=%v", b.n, b.calls, b.rowStride, b.rowCall, b.wordCall, b.off, b.stream)
}

// checkNibbleBatches checks kernel of every implementation against def, which writes
// the batch's bytes by the kernel's definition, on random source bytes and random
// batches of every length, in the two ways the nibble tiles lay out a batch: a call's
// eight rows far apart with the calls side by side (one tile row after another of a
// group), or a call's rows together. The destination's strides (the rows' side if
// rowsDst) leave gaps that must stay as they were, aligned to lines or not; the
// source's a few bytes. Stores are non-temporal or not, on aligned and unaligned
// destinations.
func checkNibbleBatches(t *testing.T, seed uint64, rowsDst bool, def func(b nibbleBatch, dst, src []byte), kernel func(k *Kernels, b nibbleBatch, dst, src []byte)) {
	r := rand.New(rand.NewPCG(seed, 1))
	for _, k := range Available() {
		for _, n := range testLengths[:34] {
			for _, interleaved := range []bool{true, false} {
				b := nibbleBatch{n: n, calls: r.IntN(5), rowsDst: rowsDst}
				gap := r.IntN(3) * 64 * b2i(r.IntN(2) == 0)
				if r.IntN(3) == 0 {
					gap += 1 + r.IntN(63)
				}
				gapOf := func(dst bool) int {
					if dst {
						return gap
					}
					return r.IntN(9)
				}
				if interleaved {
					b.rowCall = n + gapOf(rowsDst)
					b.rowStride = max(b.calls, 1)*b.rowCall + gapOf(rowsDst)
				} else {
					b.rowStride = n + gapOf(rowsDst)
					b.rowCall = 8*b.rowStride + gapOf(rowsDst)
				}
				b.wordCall = 4*n + gapOf(!rowsDst)
				b.off, b.stream = testOffsets[r.IntN(len(testOffsets))], r.IntN(2) == 0
				dlen, slen := b.wordsLen(), b.rowsLen()
				if rowsDst {
					dlen, slen = slen, dlen
				}
				src := randBytes(r, slen)
				checkDst(t, k.Name+"/"+b.String(), bytes.Repeat([]byte{guardByte}, dlen), b.off, func(dst []byte) {
					def(b, dst, src)
				}, func(dst []byte) {
					kernel(k, b, dst, src)
					k.Fence()
				})
			}
		}
	}
}

// TestSplitNibbleWordsRows checks Nibbles.SplitWordsRows of every implementation against
// its definition element by element.
func TestSplitNibbleWordsRows(t *testing.T) {
	checkNibbleBatches(t, 30, true, splitWordsDef, func(k *Kernels, b nibbleBatch, dst, src []byte) {
		k.Nibbles.SplitWordsRows(dst, b.rowStride, src, b.n, b.rows())
	})
}

// splitWordsDef is Nibbles.SplitWordsRows' definition on the batch b.
func splitWordsDef(b nibbleBatch, dst, src []byte) {
	for j := range b.calls {
		for m := range 8 {
			for i := range b.n {
				dst[j*b.rowCall+m*b.rowStride+i] = src[j*b.wordCall+4*i+m/2] >> (4 * (m % 2)) & 15
			}
		}
	}
}

// TestJoinNibbleWordsRows checks Nibbles.JoinWordsRows of every implementation against
// its definition element by element, source bytes above 4 bits included.
func TestJoinNibbleWordsRows(t *testing.T) {
	checkNibbleBatches(t, 31, false, func(b nibbleBatch, dst, src []byte) {
		for j := range b.calls {
			for i := range b.n {
				for w := range 4 {
					s := j*b.rowCall + 2*w*b.rowStride + i
					dst[j*b.wordCall+4*i+w] = src[s]&15 | src[s+b.rowStride]<<4
				}
			}
		}
	}, func(k *Kernels, b nibbleBatch, dst, src []byte) {
		k.Nibbles.JoinWordsRows(dst, src, b.rowStride, b.n, b.rows())
	})
}

// nibblePanics are operands of one call of 64 words that must panic: bytes on the
// rows' and the words' side, and the rows' stride.
var nibblePanics = []struct {
	name                string
	rows, words, stride int
}{
	{"short rows", 7*100 + 63, 4 * 64, 100},
	{"short words", 7*100 + 64, 4*64 - 1, 100},
	{"huge stride", 1 << 20, 4 * 64, math.MaxInt / 2}, // 7 strides overflow int
	{"negative stride", 1 << 20, 4 * 64, -1},
}

// checkNibblePanics checks that call panics on every case of nibblePanics before it
// stores to dst, the rows' side if rowsDst.
func checkNibblePanics(t *testing.T, rowsDst bool, call func(k *Kernels, dst, src []byte, stride int)) {
	for _, k := range Available() {
		for _, c := range nibblePanics {
			dst, src := make([]byte, c.words), make([]byte, c.rows)
			if rowsDst {
				dst, src = src, dst
			}
			testenv.MustPanic(t, k.Name+": "+c.name, func() { call(k, dst, src, c.stride) })
			if i := slices.IndexFunc(dst, func(b byte) bool { return b != 0 }); i >= 0 {
				t.Fatalf("%s: %s: byte %d written before the panic", k.Name, c.name, i)
			}
		}
	}
}

// TestSplitNibbleWordsRowsPanics checks that short operands panic before any store.
func TestSplitNibbleWordsRowsPanics(t *testing.T) {
	checkNibblePanics(t, true, func(k *Kernels, dst, src []byte, stride int) {
		k.Nibbles.SplitWordsRows(dst, stride, src, 64, Rows{N: 1})
	})
}

// TestJoinNibbleWordsRowsPanics checks that short operands panic before any store.
func TestJoinNibbleWordsRowsPanics(t *testing.T) {
	checkNibblePanics(t, false, func(k *Kernels, dst, src []byte, stride int) {
		k.Nibbles.JoinWordsRows(dst, src, stride, 64, Rows{N: 1})
	})
}

// TestSplitNibbleWordsRowsPair checks Nibbles.SplitWordsRowsPair of every
// implementation against SplitWordsRows' definition: the batch's first half of calls
// paired with as many of the rest, the odd call left by SplitWordsRows.
func TestSplitNibbleWordsRowsPair(t *testing.T) {
	checkNibbleBatches(t, 32, true, splitWordsDef, func(k *Kernels, b nibbleBatch, dst, src []byte) {
		h, r := b.calls/2, b.rows()
		if h == 0 {
			k.Nibbles.SplitWordsRows(dst, b.rowStride, src, b.n, r)
			return
		}
		r.N = h
		k.Nibbles.SplitWordsRowsPair(dst, dst[h*b.rowCall:], b.rowStride, src, src[h*b.wordCall:], b.n, r)
		if b.calls%2 == 1 {
			k.Nibbles.SplitWordsRows(dst[2*h*b.rowCall:], b.rowStride, src[2*h*b.wordCall:], b.n, Rows{N: 1, Hints: r.Hints})
		}
	})
}

// TestSplitNibbleWordsRowsPairTiles checks the pair as relayout reads back XLA's int4
// tiling with it (rows of 256 bytes, a tile's eight word rows a batch, two bands
// apart), streamed into aligned rows, against SplitWordsRows on each batch.
func TestSplitNibbleWordsRowsPairTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	src := randBytes(r, 4*8192)
	for _, k := range Available() {
		want, got := alignedTestBytes(4*16384), alignedTestBytes(4*16384)
		rows := Rows{N: 8, DstStride: 2048, SrcStride: 512, Hints: Hints{Stream: true}}
		for band := range 2 {
			for tile := range 2 {
				d, s := band*16384+tile*128, band*8192+tile*4096
				k.Nibbles.SplitWordsRows(want[d:], 256, src[s:], 128, rows)
				k.Nibbles.SplitWordsRows(want[d+2*16384:], 256, src[s+2*8192:], 128, rows)
				k.Nibbles.SplitWordsRowsPair(got[d:], got[d+2*16384:], 256, src[s:], src[s+2*8192:], 128, rows)
			}
		}
		k.Fence()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: pair differs from two batches", k.Name)
		}
	}
}

// alignedTestBytes returns n zero bytes starting on a line.
func alignedTestBytes(n int) []byte {
	b := make([]byte, n+64)
	for !aligned64(b) {
		b = b[1:]
	}
	return b[:n]
}
