package simd

import (
	"fmt"
	"testing"
)

// BenchmarkRowsDstOffset times the batched streaming copy as an untiling does it
// (f32 T(8,128) tiles of 8 rows of 512 bytes into rows 32 KiB apart, 64 MiB), with the
// destination off bytes past a 64-byte boundary, beside copy() of the same bytes:
//
//	go test ./simd -run '^$' -bench RowsDstOffset
func BenchmarkRowsDstOffset(b *testing.B) {
	const size, row, seg = 64 << 20, 32 << 10, 512
	benchDstOffsets(b, size, true, func(k *Kernels, dst, src []byte) {
		t := 0
		for i := 0; i < size; i += 8 * row {
			for j := 0; j < row; j += seg {
				k.CopyRows(dst[i+j:], src[t:], seg, Rows{N: 8, DstStride: row, SrcStride: seg, Stream: true})
				t += 8 * seg
			}
		}
	})
}

// BenchmarkTransposeDstOffset times the non-temporal 32-bit transpose of a 4096×4096
// matrix in 512×512 blocks (as relayout cuts it) with the destination off bytes past a
// 64-byte boundary:
//
//	go test ./simd -run '^$' -bench TransposeDstOffset
func BenchmarkTransposeDstOffset(b *testing.B) {
	const n, blk = 4096, 512
	benchDstOffsets(b, 4*n*n, false, func(k *Kernels, dst, src []byte) {
		for i := 0; i < n; i += blk {
			for j := 0; j < n; j += blk {
				k.Transpose(4, Streaming)(dst[4*(j*n+i):], 4*n, src[4*(i*n+j):], 4*n, blk, blk)
			}
		}
	})
}

// benchDstOffsets times pass, then a fence, with each vector kernel set, from a source
// of size benchFill bytes into a destination 0 and 16 bytes past a 64-byte boundary;
// with gocopy, copy() of the same bytes into an aligned destination first.
func benchDstOffsets(b *testing.B, size int, gocopy bool, pass func(k *Kernels, dst, src []byte)) {
	src := make([]byte, size)
	buf := make([]byte, size+128)
	benchFill(src, true)
	a := int(-addr64(buf) & 63)
	if gocopy {
		b.Run("impl=gocopy", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				copy(buf[:size], src)
			}
		})
	}
	for _, k := range Available()[1:] {
		for _, off := range []int{0, 16} {
			dst := buf[a+off : a+off+size]
			b.Run(fmt.Sprintf("impl=%s/off=%d", k.Name, off), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					pass(k, dst, src)
					k.Fence()
				}
			})
		}
	}
}
