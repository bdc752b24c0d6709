package simd

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The fuzz targets compare every available implementation with the generic
// one on inputs derived from the fuzz data. Run one with, for example,
//
//	go test ./simd/ -run '^$' -fuzz FuzzConvert -fuzztime 300000x
//
// and again with -tags noasm over the same corpus. A count, not a duration: with
// -fuzztime 40s Go 1.26 can end a clean run with a bare "context deadline exceeded"
// and no crasher (a race in its fuzzing coordinator, golang/go#75804; seen here).

// cycle returns n bytes made of repeated copies of data (zeros if empty).
func cycle(data []byte, n, shift int) []byte {
	b := make([]byte, n)
	if len(data) == 0 {
		return b
	}
	for i := range b {
		b[i] = data[(i+shift)%len(data)]
	}
	return b
}

// fuzzFamily runs the kernel cases named in names on inputs cut from data.
func fuzzFamily(t *testing.T, names []string, data []byte, n, off int) {
	impls := Available()[1:]
	for _, kc := range kernelCases {
		for _, name := range names {
			if kc.name != name {
				continue
			}
			in := make([][]byte, len(kc.inLen))
			for j, l := range kc.inLen {
				in[j] = cycle(data, l(n), 7*j)
			}
			for _, k := range impls {
				runCaseData(t, kc, k, in, n, off%64, (off/64)%64)
			}
		}
	}
}

// fuzzKernels fuzzes the kernel cases named in names with fuzzFamily, n below maxN,
// from a few seeds.
func fuzzKernels(f *testing.F, maxN int, names ...string) {
	f.Add([]byte{}, uint16(0), uint16(0))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint16(33), uint16(1))
	f.Add(bytes.Repeat([]byte{0xff, 0xff, 0x80, 0x7f}, 40), uint16(129), uint16(36+64*4))
	f.Add(bytes.Repeat([]byte{0x00, 0x80, 0x80, 0x3f, 0x01, 0x00, 0xc0, 0xff}, 33), uint16(257), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, n, off uint16) {
		fuzzFamily(t, names, data, int(n)%maxN, int(off))
	})
}

func FuzzCopy(f *testing.F)   { fuzzKernels(f, 4096, "Copy", "CopyNT") }
func FuzzPack16(f *testing.F) { fuzzKernels(f, 2048, "Interleave16", "Deinterleave16") }
func FuzzPack8(f *testing.F)  { fuzzKernels(f, 2048, "Interleave8x4", "Deinterleave8x4") }

func FuzzConvert(f *testing.F) {
	fuzzKernels(f, 1024, "F32ToBF16", "F32ToF16", "BF16ToF32", "F16ToF32",
		"F32ToBF16Interleave", "F32ToF16Interleave", "BF16DeinterleaveToF32")
}

func FuzzTranspose(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint8(17), uint8(33), uint8(3), uint8(0))
	f.Add([]byte{9, 8, 7, 6, 5}, uint8(64), uint8(32), uint8(0), uint8(1))
	f.Add([]byte{0}, uint8(40), uint8(70), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, rows, cols, pad, wsel uint8) {
		w, nt := []int{4, 2, 1}[wsel%3], wsel&4 != 0
		r, c, p := int(rows), int(cols), int(pad%8)
		ss, ds := (c+p)*w, (r+2*p)*w
		var srcLen, dstLen int
		if r > 0 && c > 0 {
			srcLen, dstLen = (r-1)*ss+c*w, (c-1)*ds+r*w
		}
		src := cycle(data, srcLen, 0)
		want := cycle(data, dstLen, 3)
		Generic().transpose(w, false)(want, ds, src, ss, r, c)
		for _, k := range Available()[1:] {
			g := newGuarded(dstLen, p)
			copy(g.b(), cycle(data, dstLen, 3))
			k.transpose(w, nt)(g.b(), ds, src, ss, r, c)
			g.checkGuards(t, k.Name)
			if !bytes.Equal(g.b(), want) {
				t.Fatalf("%s Transpose w=%d nt=%v rows=%d cols=%d: differs from generic", k.Name, w, nt, r, c)
			}
		}
	})
}

func FuzzFill(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint8(2), uint16(100), uint8(1))
	f.Fuzz(func(t *testing.T, pat []byte, psel uint8, n uint16, off uint8) {
		pl := []int{1, 2, 4, 8, 16}[psel%5]
		p := cycle(pat, pl, 0)
		size := int(n) % 2048 * pl
		want := make([]byte, size)
		Generic().Fill(want, p)
		for _, k := range Available()[1:] {
			g := newGuarded(size, int(off)%64)
			k.Fill(g.b(), p)
			g.checkGuards(t, k.Name)
			if !bytes.Equal(g.b(), want) {
				t.Fatalf("%s Fill(%d bytes, pattern %d): differs from generic", k.Name, size, pl)
			}
		}
	})
}

// transpose returns the Transpose kernel for w-byte elements, non-temporal or not.
func (k *Kernels) transpose(w int, nt bool) func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	switch {
	case w == 4 && nt:
		return k.Transpose(4, NonTemporal)
	case w == 4:
		return k.Transpose(4, Ordinary)
	case w == 2 && nt:
		return k.Transpose(2, NonTemporal)
	case w == 2:
		return k.Transpose(2, Ordinary)
	case nt:
		return k.Transpose(1, NonTemporal)
	}
	return k.Transpose(1, Ordinary)
}

// transposeStream returns the Transpose kernel for w-byte elements that leaves the
// fence to the caller.
func (k *Kernels) transposeStream(w int) func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	switch w {
	case 4:
		return k.Transpose(4, Streaming)
	case 2:
		return k.Transpose(2, Streaming)
	}
	return k.Transpose(1, Streaming)
}

// FuzzRows checks the batched kernels against row-by-row generic calls, with
// the row count, length, gaps and a shared source row from the fuzzer.
func FuzzRows(f *testing.F) {
	f.Add(uint64(1), uint16(128), uint8(4), uint8(0), uint8(0), false)
	f.Add(uint64(2), uint16(67), uint8(9), uint8(13), uint8(64), true)
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, rows, dgap, sgap uint8, shared bool) {
		r := rand.New(rand.NewPCG(seed, 7))
		for _, c := range rowsCases {
			for _, k := range Available() {
				rs := Rows{N: int(rows) % 17, Hints: Hints{Stream: rows&0x80 != 0}}
				checkRowsCase(t, c, k, r, int(n)%1100, rs, int(dgap), int(sgap), shared)
			}
		}
	})
}
