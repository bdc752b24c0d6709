package simd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// This file holds straightforward per-element versions of the generic kernels
// (the original implementations) and tests that compare the optimised generic
// kernels against them, with guard bytes, over every length 0..300 and random
// offsets and strides.

func refInterleave16(dst, a, b []byte, n int) {
	for i := 0; i < n; i++ {
		le.PutUint16(dst[4*i:], le.Uint16(a[2*i:]))
		le.PutUint16(dst[4*i+2:], le.Uint16(b[2*i:]))
	}
}

func refDeinterleave16(a, b, src []byte, n int) {
	for i := 0; i < n; i++ {
		le.PutUint16(a[2*i:], le.Uint16(src[4*i:]))
		le.PutUint16(b[2*i:], le.Uint16(src[4*i+2:]))
	}
}

func refInterleave8x4(dst, r0, r1, r2, r3 []byte, n int) {
	for i := 0; i < n; i++ {
		dst[4*i], dst[4*i+1], dst[4*i+2], dst[4*i+3] = r0[i], r1[i], r2[i], r3[i]
	}
}

func refDeinterleave8x4(r0, r1, r2, r3, src []byte, n int) {
	for i := 0; i < n; i++ {
		r0[i], r1[i], r2[i], r3[i] = src[4*i], src[4*i+1], src[4*i+2], src[4*i+3]
	}
}

// refNarrow and refWiden are the reference loops of the f32 ↔ 16-bit conversions,
// element by element through the scalar conversion f; refNarrowPair narrows two f32
// rows into interleaved pairs.
func refNarrow(f func(uint32) uint16) func(dst, src []byte, n int) {
	return func(dst, src []byte, n int) {
		for i := 0; i < n; i++ {
			le.PutUint16(dst[2*i:], f(le.Uint32(src[4*i:])))
		}
	}
}

func refWiden(f func(uint16) uint32) func(dst, src []byte, n int) {
	return func(dst, src []byte, n int) {
		for i := 0; i < n; i++ {
			le.PutUint32(dst[4*i:], f(le.Uint16(src[2*i:])))
		}
	}
}

func refNarrowPair(f func(uint32) uint16) func(dst, a, b []byte, n int) {
	return func(dst, a, b []byte, n int) {
		for i := 0; i < n; i++ {
			le.PutUint16(dst[4*i:], f(le.Uint32(a[4*i:])))
			le.PutUint16(dst[4*i+2:], f(le.Uint32(b[4*i:])))
		}
	}
}

func refBF16DeinterleaveToF32(a, b, src []byte, n int) {
	for i := 0; i < n; i++ {
		le.PutUint32(a[4*i:], BF16BitsToF32(le.Uint16(src[4*i:])))
		le.PutUint32(b[4*i:], BF16BitsToF32(le.Uint16(src[4*i+2:])))
	}
}

func refTranspose(w int, dst []byte, ds int, src []byte, ss int, rows, cols int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			copy(dst[j*ds+i*w:j*ds+i*w+w], src[i*ss+j*w:i*ss+j*w+w])
		}
	}
}

// refKernels is a Kernels value made of the reference loops, so that the
// kernelCases table can run it.
var refKernels = &Kernels{
	Name: "ref",
	one: single{
		conv: [nDTypes][nDTypes]func(dst, src []byte, n int){
			F32:  {BF16: refNarrow(F32ToBF16Bits), F16: refNarrow(F32ToF16Bits)},
			BF16: {F32: refWiden(BF16BitsToF32)},
			F16:  {F32: refWiden(F16BitsToF32)},
		},
		pack2:   [nDTypes][nDTypes]func(dst, a, b []byte, n int){Bits16: {Bits16: refInterleave16}, F32: {BF16: refNarrowPair(F32ToBF16Bits), F16: refNarrowPair(F32ToF16Bits)}},
		unpack2: [nDTypes][nDTypes]func(a, b, src []byte, n int){Bits16: {Bits16: refDeinterleave16}, BF16: {F32: refBF16DeinterleaveToF32}},
		pack4:   [nDTypes][nDTypes]func(dst, r0, r1, r2, r3 []byte, n int){Bits8: {Bits8: refInterleave8x4}},
		unpack4: [nDTypes][nDTypes]func(r0, r1, r2, r3, src []byte, n int){Bits8: {Bits8: refDeinterleave8x4}},
	},
}

// nanHeavyF32 returns n f32 values of which about one in three is a NaN, so
// that most SWAR groups take the slow path and NaNs land on every lane.
func nanHeavyF32(r *rand.Rand, n int) []byte {
	b := randF32(r, n)
	for i := 0; i < n; i++ {
		if r.IntN(3) == 0 {
			le.PutUint32(b[4*i:], 0x7f800001|r.Uint32()&0x807fffff)
		}
	}
	return b
}

func TestGenericAgainstRef(t *testing.T) {
	for _, kc := range kernelCases {
		if kc.name == "Copy" || kc.name == "CopyNT" {
			continue
		}
		t.Run(kc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(21, 22))
			for n := 0; n <= 300; n++ {
				for rep := 0; rep < 2; rep++ {
					in := make([][]byte, len(kc.inLen))
					for j, l := range kc.inLen {
						switch {
						case kc.f32In && rep == 1:
							in[j] = nanHeavyF32(r, l(n)/4)
						case kc.f32In:
							in[j] = randF32(r, l(n)/4)
						default:
							in[j] = randBytes(r, l(n))
						}
					}
					offIn, offOut := r.IntN(64), r.IntN(64)
					compareOn(t, kc, refKernels, Generic(), in, n,
						func(j int) int { return (offIn + 5*j) % 64 }, func(j int) int { return (offOut + 3*j) % 64 })
				}
			}
		})
	}
}

func TestGenericTransposeAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	gen := map[int]func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int){
		4: genericTranspose32, 2: genericTranspose16, 1: genericTranspose8}
	dims := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 70, 100, 129}
	for _, w := range []int{4, 2, 1} {
		t.Run(fmt.Sprintf("w=%d", w), func(t *testing.T) {
			iters := 600
			if testing.Short() {
				iters = 150
			}
			for it := 0; it < iters; it++ {
				var rows, cols int
				if it < len(dims)*len(dims) && it < iters/2 {
					rows, cols = dims[r.IntN(len(dims))], dims[r.IntN(len(dims))]
				} else {
					rows, cols = r.IntN(140), r.IntN(140)
				}
				ss := cols*w + r.IntN(3)*r.IntN(70)
				ds := rows*w + r.IntN(3)*r.IntN(70)
				if r.IntN(8) == 0 { // power-of-two strides, as in the relayout engine
					ss = max(ss, 1<<(8+r.IntN(3)))
					ds = max(ds, 1<<(8+r.IntN(3)))
				}
				srcLen, dstLen := 0, 0
				if rows > 0 && cols > 0 {
					srcLen = (rows-1)*ss + cols*w
					dstLen = (cols-1)*ds + rows*w
				}
				sg := newGuarded(srcLen, r.IntN(64))
				copy(sg.b(), randBytes(r, srcLen))
				fill := randBytes(r, dstLen) // bytes between destination rows must survive
				checkDst(t, fmt.Sprintf("w=%d rows=%d cols=%d ss=%d ds=%d", w, rows, cols, ss, ds), fill, r.IntN(64),
					func(dst []byte) { refTranspose(w, dst, ds, sg.b(), ss, rows, cols) },
					func(dst []byte) { gen[w](dst, ds, sg.b(), ss, rows, cols) })
			}
		})
	}
}

// TestGenericTransposeLarge covers the tiled paths with the relayout
// engine's shapes: 512×512 blocks inside wider rows, and 64×64 blocks with
// 1 MiB-like (here 64 KiB) power-of-two strides.
func TestGenericTransposeLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	r := rand.New(rand.NewPCG(25, 26))
	for _, w := range []int{4, 2, 1} {
		for _, c := range []struct{ rows, cols, ss, ds int }{
			{512, 512, 1024 * w, 1024 * w},
			{64, 64, 64 << 10, 64 << 10},
			{257, 131, 300 * w, 260 * w},
		} {
			src := randBytes(r, (c.rows-1)*c.ss+c.cols*w)
			want := randBytes(r, (c.cols-1)*c.ds+c.rows*w)
			got := bytes.Clone(want)
			refTranspose(w, want, c.ds, src, c.ss, c.rows, c.cols)
			map[int]func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int){
				4: genericTranspose32, 2: genericTranspose16, 1: genericTranspose8}[w](got, c.ds, src, c.ss, c.rows, c.cols)
			if !bytes.Equal(got, want) {
				t.Fatalf("w=%d %+v: differs from the reference", w, c)
			}
		}
	}
}
