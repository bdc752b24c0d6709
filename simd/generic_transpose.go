package simd

import (
	"fmt"
	"sync/atomic"
)

// checkTranspose panics unless the arguments describe in-range source and
// destination matrices for a transpose of w-byte elements.
func checkTranspose(w int, dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	if rows < 0 || cols < 0 || dstStride < 0 || srcStride < 0 {
		panic(fmt.Sprintf("simd: Transpose: negative argument (rows=%d cols=%d dstStride=%d srcStride=%d)", rows, cols, dstStride, srcStride))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*srcStride + cols*w; need > len(src) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose: src too short: need %d bytes, have %d", need, len(src)))
	}
	if need := (cols-1)*dstStride + rows*w; need > len(dst) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose: dst too short: need %d bytes, have %d", need, len(dst)))
	}
}

func genericTranspose32(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTranspose(4, dst, dstStride, src, srcStride, rows, cols)
	transposeRect32(dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

func genericTranspose16(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTranspose(2, dst, dstStride, src, srcStride, rows, cols)
	transposeRect16(dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

func genericTranspose8(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int) {
	checkTranspose(1, dst, dstStride, src, srcStride, rows, cols)
	transposeRect8(dst, dstStride, src, srcStride, 0, rows, 0, cols)
}

// The transposes work in tiles of 64 bytes × 64/W elements: one cache line
// of each source row and of each destination row. A tile is transposed in
// registers (2×2, 4×4 or 8×8 element blocks held in uint64s) into a buffer on
// the stack, then written out one whole destination line at a time, so every
// source and destination line is touched once, in one go, whatever the
// strides (power-of-two strides map all the rows of a tile to the same cache
// set). Tiles are walked along strips of source rows, so the hardware
// prefetcher sees the source rows as sequential streams. What is left at the
// right and bottom edges goes through register blocks written directly, then
// element by element.

// transposeRect32 transposes source rows [r0,r1) and columns [c0,c1).
// Bounds must have been checked by the caller.
func transposeRect32(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	const t = 16
	rt, ct := r0+(r1-r0)/t*t, c0+(c1-c0)/t*t
	var sum byte
	for i := r0; i < rt; i += t {
		for j := c0; j < ct; j += t {
			sum ^= touchNext(src, ss, i, j, 1, t, 4, rt, c0, ct)
			tile32(dst[j*ds+4*i:], ds, src[i*ss+4*j:], ss)
		}
	}
	touchSink.Store(uint32(sum))
	blocks32(dst, ds, src, ss, r0, rt, ct, c1)
	blocks32(dst, ds, src, ss, rt, r1, c0, c1)
}

// touchSink keeps the loads of touchNext alive. It is stored atomically, once
// per call, because concurrent transposes all write it.
var touchSink atomic.Uint32

// touchNext loads one byte of each source line of the t×t tile of w-byte
// elements that comes d tiles after tile (i, j) in the walk (rows by strips,
// columns [c0,ct) within a strip, rows below rt), so that their cache misses
// overlap with the work on the tiles before it. Source rows are many short
// streams in different pages, which the hardware prefetcher is slow to pick
// up. It returns the XOR of the bytes.
func touchNext(src []byte, ss int, i, j, d, t, w, rt, c0, ct int) byte {
	for ; d > 0; d-- {
		if j += t; j >= ct {
			i, j = i+t, c0
			if i >= rt {
				return 0
			}
		}
	}
	var x byte
	so := i*ss + w*j
	for k := 0; k < t; k++ {
		x ^= src[so]
		so += ss
	}
	return x
}

// tile32 transposes a 16×16 tile of 32-bit elements.
func tile32(dst []byte, ds int, src []byte, ss int) {
	var buf [16][8]uint64 // buf[j][k]: elements 2k, 2k+1 of destination row j
	for k := range 8 {
		s0 := (*[64]byte)(src[2*k*ss:])
		s1 := (*[64]byte)(src[(2*k+1)*ss:])
		buf[0][k], buf[1][k] = zip32(le.Uint64(s0[0:]), le.Uint64(s1[0:]))
		buf[2][k], buf[3][k] = zip32(le.Uint64(s0[8:]), le.Uint64(s1[8:]))
		buf[4][k], buf[5][k] = zip32(le.Uint64(s0[16:]), le.Uint64(s1[16:]))
		buf[6][k], buf[7][k] = zip32(le.Uint64(s0[24:]), le.Uint64(s1[24:]))
		buf[8][k], buf[9][k] = zip32(le.Uint64(s0[32:]), le.Uint64(s1[32:]))
		buf[10][k], buf[11][k] = zip32(le.Uint64(s0[40:]), le.Uint64(s1[40:]))
		buf[12][k], buf[13][k] = zip32(le.Uint64(s0[48:]), le.Uint64(s1[48:]))
		buf[14][k], buf[15][k] = zip32(le.Uint64(s0[56:]), le.Uint64(s1[56:]))
	}
	for j := range 16 {
		storeLine((*[64]byte)(dst[j*ds:]), &buf[j])
	}
}

// storeLine writes the eight words of b to d.
func storeLine(d *[64]byte, b *[8]uint64) {
	le.PutUint64(d[0:], b[0])
	le.PutUint64(d[8:], b[1])
	le.PutUint64(d[16:], b[2])
	le.PutUint64(d[24:], b[3])
	le.PutUint64(d[32:], b[4])
	le.PutUint64(d[40:], b[5])
	le.PutUint64(d[48:], b[6])
	le.PutUint64(d[56:], b[7])
}

// zip32 transposes the 2×2 matrix of 32-bit lanes with rows x and y.
func zip32(x, y uint64) (c0, c1 uint64) {
	t := uint64(uint32(x>>32 ^ y))
	return x ^ t<<32, y ^ t
}

// blocks32 transposes rows [r0,r1) and columns [c0,c1) with 4×4 register
// blocks written directly, and the rest element by element.
func blocks32(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	if r0 >= r1 || c0 >= c1 {
		return
	}
	const b = 4
	rb, cb := r0+(r1-r0)/b*b, c0+(c1-c0)/b*b
	for i := r0; i < rb; i += b {
		for j := c0; j < cb; j += b {
			s0 := (*[16]byte)(src[i*ss+4*j:])
			s1 := (*[16]byte)(src[(i+1)*ss+4*j:])
			s2 := (*[16]byte)(src[(i+2)*ss+4*j:])
			s3 := (*[16]byte)(src[(i+3)*ss+4*j:])
			a0, a1 := zip32(le.Uint64(s0[0:]), le.Uint64(s1[0:]))
			a2, a3 := zip32(le.Uint64(s0[8:]), le.Uint64(s1[8:]))
			b0, b1 := zip32(le.Uint64(s2[0:]), le.Uint64(s3[0:]))
			b2, b3 := zip32(le.Uint64(s2[8:]), le.Uint64(s3[8:]))
			d0 := (*[16]byte)(dst[j*ds+4*i:])
			d1 := (*[16]byte)(dst[(j+1)*ds+4*i:])
			d2 := (*[16]byte)(dst[(j+2)*ds+4*i:])
			d3 := (*[16]byte)(dst[(j+3)*ds+4*i:])
			le.PutUint64(d0[0:], a0)
			le.PutUint64(d0[8:], b0)
			le.PutUint64(d1[0:], a1)
			le.PutUint64(d1[8:], b1)
			le.PutUint64(d2[0:], a2)
			le.PutUint64(d2[8:], b2)
			le.PutUint64(d3[0:], a3)
			le.PutUint64(d3[8:], b3)
		}
	}
	scalar32(dst, ds, src, ss, r0, rb, cb, c1)
	scalar32(dst, ds, src, ss, rb, r1, c0, c1)
}

func scalar32(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	for j := c0; j < c1; j++ {
		for i := r0; i < r1; i++ {
			le.PutUint32(dst[j*ds+4*i:], le.Uint32(src[i*ss+4*j:]))
		}
	}
}

// transposeRect16 is transposeRect32 for 16-bit elements.
func transposeRect16(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	const t = 32
	rt, ct := r0+(r1-r0)/t*t, c0+(c1-c0)/t*t
	var sum byte
	for i := r0; i < rt; i += t {
		for j := c0; j < ct; j += t {
			sum ^= touchNext(src, ss, i, j, 1, t, 2, rt, c0, ct)
			tile16(dst[j*ds+2*i:], ds, src[i*ss+2*j:], ss)
		}
	}
	touchSink.Store(uint32(sum))
	blocks16(dst, ds, src, ss, r0, rt, ct, c1)
	blocks16(dst, ds, src, ss, rt, r1, c0, c1)
}

// pair8 and pair16 interleave the even lanes of x and y, and the odd ones:
// for byte lanes, pair8 returns [x0 y0 x2 y2 x4 y4 x6 y6] and
// [x1 y1 x3 y3 x5 y5 x7 y7] (lane 0 least significant); pair16 does the same
// with 16-bit lanes and zip32 with 32-bit ones. They are the steps of the
// SWAR transposes, done as delta swaps (swap the odd lanes of x with the even
// lanes of y), and each is its own inverse.
func pair8(x, y uint64) (even, odd uint64) {
	t := (x>>8 ^ y) & m8lo
	return x ^ t<<8, y ^ t
}

func pair16(x, y uint64) (even, odd uint64) {
	t := (x>>16 ^ y) & m16lo
	return x ^ t<<16, y ^ t
}

// zip16x4 transposes the 4×4 matrix of 16-bit lanes with rows x0..x3.
func zip16x4(x0, x1, x2, x3 uint64) (c0, c1, c2, c3 uint64) {
	t0, t1 := pair16(x0, x1) // [x00 x10 x02 x12], [x01 x11 x03 x13]
	t2, t3 := pair16(x2, x3)
	c0, c2 = zip32(t0, t2)
	c1, c3 = zip32(t1, t3)
	return
}

// tile16 transposes a 32×32 tile of 16-bit elements.
func tile16(dst []byte, ds int, src []byte, ss int) {
	var buf [32][8]uint64 // buf[j][k]: elements 4k..4k+3 of destination row j
	for k := range 8 {
		s0 := (*[64]byte)(src[4*k*ss:])
		s1 := (*[64]byte)(src[(4*k+1)*ss:])
		s2 := (*[64]byte)(src[(4*k+2)*ss:])
		s3 := (*[64]byte)(src[(4*k+3)*ss:])
		for q := range 8 {
			o := 8 * q
			// zip16x4, written out: the compiler does not inline it.
			t0, t1 := pair16(le.Uint64(s0[o:o+8]), le.Uint64(s1[o:o+8]))
			t2, t3 := pair16(le.Uint64(s2[o:o+8]), le.Uint64(s3[o:o+8]))
			c0, c2 := zip32(t0, t2)
			c1, c3 := zip32(t1, t3)
			bq := (*[4][8]uint64)(buf[4*q : 4*q+4])
			bq[0][k], bq[1][k], bq[2][k], bq[3][k] = c0, c1, c2, c3
		}
	}
	for j := range 32 {
		storeLine((*[64]byte)(dst[j*ds:]), &buf[j])
	}
}

// blocks16 is blocks32 for 16-bit elements.
func blocks16(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	if r0 >= r1 || c0 >= c1 {
		return
	}
	const b = 4
	rb, cb := r0+(r1-r0)/b*b, c0+(c1-c0)/b*b
	for i := r0; i < rb; i += b {
		for j := c0; j < cb; j += b {
			c0, c1, c2, c3 := zip16x4(
				le.Uint64(src[i*ss+2*j:]), le.Uint64(src[(i+1)*ss+2*j:]),
				le.Uint64(src[(i+2)*ss+2*j:]), le.Uint64(src[(i+3)*ss+2*j:]))
			le.PutUint64(dst[j*ds+2*i:], c0)
			le.PutUint64(dst[(j+1)*ds+2*i:], c1)
			le.PutUint64(dst[(j+2)*ds+2*i:], c2)
			le.PutUint64(dst[(j+3)*ds+2*i:], c3)
		}
	}
	scalar16(dst, ds, src, ss, r0, rb, cb, c1)
	scalar16(dst, ds, src, ss, rb, r1, c0, c1)
}

func scalar16(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	for j := c0; j < c1; j++ {
		for i := r0; i < r1; i++ {
			le.PutUint16(dst[j*ds+2*i:], le.Uint16(src[i*ss+2*j:]))
		}
	}
}

// transposeRect8 is transposeRect32 for 8-bit elements.
func transposeRect8(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	const t = 64
	rt, ct := r0+(r1-r0)/t*t, c0+(c1-c0)/t*t
	var sum byte
	for i := r0; i < rt; i += t {
		for j := c0; j < ct; j += t {
			sum ^= touchNext(src, ss, i, j, 1, t, 1, rt, c0, ct)
			tile8(dst[j*ds+i:], ds, src[i*ss+j:], ss)
		}
	}
	touchSink.Store(uint32(sum))
	blocks8(dst, ds, src, ss, r0, rt, ct, c1)
	blocks8(dst, ds, src, ss, rt, r1, c0, c1)
}

// zip8x8 transposes the 8×8 matrix of bytes with rows x0..x7.
func zip8x8(x0, x1, x2, x3, x4, x5, x6, x7 uint64) (c0, c1, c2, c3, c4, c5, c6, c7 uint64) {
	// Bytes to 16-bit pairs: a* hold even columns, b* odd ones, of row pairs.
	a0, b0 := pair8(x0, x1)
	a1, b1 := pair8(x2, x3)
	a2, b2 := pair8(x4, x5)
	a3, b3 := pair8(x6, x7)
	// Pairs to quads (rows 0-3 and 4-7): columns {0,4} {2,6} {1,5} {3,7}.
	e0, f0 := pair16(a0, a1)
	g0, h0 := pair16(b0, b1)
	e1, f1 := pair16(a2, a3)
	g1, h1 := pair16(b2, b3)
	// Quads to columns.
	c0, c4 = zip32(e0, e1)
	c2, c6 = zip32(f0, f1)
	c1, c5 = zip32(g0, g1)
	c3, c7 = zip32(h0, h1)
	return
}

// tile8 transposes a 64×64 tile of bytes.
func tile8(dst []byte, ds int, src []byte, ss int) {
	var buf [64][8]uint64 // buf[j][k]: elements 8k..8k+7 of destination row j
	for k := range 8 {
		s := src[8*k*ss:]
		s0 := (*[64]byte)(s)
		s1 := (*[64]byte)(s[ss:])
		s2 := (*[64]byte)(s[2*ss:])
		s3 := (*[64]byte)(s[3*ss:])
		s4 := (*[64]byte)(s[4*ss:])
		s5 := (*[64]byte)(s[5*ss:])
		s6 := (*[64]byte)(s[6*ss:])
		s7 := (*[64]byte)(s[7*ss:])
		for q := range 8 {
			o := 8 * q
			// zip8x8, written out: the compiler does not inline it.
			a0, b0 := pair8(le.Uint64(s0[o:o+8]), le.Uint64(s1[o:o+8]))
			a1, b1 := pair8(le.Uint64(s2[o:o+8]), le.Uint64(s3[o:o+8]))
			a2, b2 := pair8(le.Uint64(s4[o:o+8]), le.Uint64(s5[o:o+8]))
			a3, b3 := pair8(le.Uint64(s6[o:o+8]), le.Uint64(s7[o:o+8]))
			e0, f0 := pair16(a0, a1)
			g0, h0 := pair16(b0, b1)
			e1, f1 := pair16(a2, a3)
			g1, h1 := pair16(b2, b3)
			c0, c4 := zip32(e0, e1)
			c2, c6 := zip32(f0, f1)
			c1, c5 := zip32(g0, g1)
			c3, c7 := zip32(h0, h1)
			bq := (*[8][8]uint64)(buf[8*q : 8*q+8])
			bq[0][k], bq[1][k], bq[2][k], bq[3][k] = c0, c1, c2, c3
			bq[4][k], bq[5][k], bq[6][k], bq[7][k] = c4, c5, c6, c7
		}
	}
	for j := range 64 {
		storeLine((*[64]byte)(dst[j*ds:]), &buf[j])
	}
}

// blocks8 is blocks32 for 8-bit elements, with 8×8 blocks.
func blocks8(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	if r0 >= r1 || c0 >= c1 {
		return
	}
	const b = 8
	rb, cb := r0+(r1-r0)/b*b, c0+(c1-c0)/b*b
	for i := r0; i < rb; i += b {
		for j := c0; j < cb; j += b {
			s := src[i*ss+j:]
			c0, c1, c2, c3, c4, c5, c6, c7 := zip8x8(
				le.Uint64(s), le.Uint64(s[ss:]), le.Uint64(s[2*ss:]), le.Uint64(s[3*ss:]),
				le.Uint64(s[4*ss:]), le.Uint64(s[5*ss:]), le.Uint64(s[6*ss:]), le.Uint64(s[7*ss:]))
			d := dst[j*ds+i:]
			le.PutUint64(d, c0)
			le.PutUint64(d[ds:], c1)
			le.PutUint64(d[2*ds:], c2)
			le.PutUint64(d[3*ds:], c3)
			le.PutUint64(d[4*ds:], c4)
			le.PutUint64(d[5*ds:], c5)
			le.PutUint64(d[6*ds:], c6)
			le.PutUint64(d[7*ds:], c7)
		}
	}
	scalar8(dst, ds, src, ss, r0, rb, cb, c1)
	scalar8(dst, ds, src, ss, rb, r1, c0, c1)
}

func scalar8(dst []byte, ds int, src []byte, ss int, r0, r1, c0, c1 int) {
	for j := c0; j < c1; j++ {
		d := dst[j*ds:]
		for i := r0; i < r1; i++ {
			d[i] = src[i*ss+j]
		}
	}
}

// checkTiles panics unless the arguments of a Transpose32Tiles are in range.
func checkTiles(dst []byte, ds, gs, g int, src []byte, ss int, rows, cols int) {
	if rows < 0 || cols < 0 || ds < 0 || gs < 0 || ss < 0 || g < 1 {
		panic(fmt.Sprintf("simd: Transpose32Tiles: negative argument (rows=%d cols=%d dstStride=%d groupStride=%d g=%d srcStride=%d)", rows, cols, ds, gs, g, ss))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*ss + cols*4; need > len(src) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose32Tiles: src too short: need %d bytes, have %d", need, len(src)))
	}
	// The furthest row is the last one, or the last of the group before it.
	end := tileRow(cols-1, ds, gs, g)
	if cols > g {
		end = max(end, tileRow((cols-1)/g*g-1, ds, gs, g))
	}
	if need := end + rows*4; need > len(dst) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose32Tiles: dst too short: need %d bytes, have %d", need, len(dst)))
	}
}

// tileRow is the offset of destination row j of a Transpose32Tiles.
func tileRow(j, ds, gs, g int) int { return j/g*gs + j%g*ds }

func genericTranspose32Tiles(dst []byte, ds, gs, g int, src []byte, ss int, rows, cols int, stream bool) {
	checkTiles(dst, ds, gs, g, src, ss, rows, cols)
	tilesRect(dst, ds, gs, g, src, ss, 0, rows, 0, cols)
}

// tilesRect transposes source rows [r0,r1) and columns [c0,c1) of a Transpose32Tiles,
// one destination group at a time. Bounds must have been checked by the caller.
func tilesRect(dst []byte, ds, gs, g int, src []byte, ss int, r0, r1, c0, c1 int) {
	if r0 >= r1 {
		return
	}
	for a := c0 / g * g; a < c1; a += g {
		transposeRect32(dst[a/g*gs:], ds, src[4*a:], ss, r0, r1, max(c0, a)-a, min(c1, a+g)-a)
	}
}

// checkFromTiles panics unless the arguments of a Transpose32FromTiles are in range.
func checkFromTiles(dst []byte, ds int, src []byte, ss, gs, g int, rows, cols int) {
	if rows < 0 || cols < 0 || ds < 0 || gs < 0 || ss < 0 || g < 1 {
		panic(fmt.Sprintf("simd: Transpose32FromTiles: negative argument (rows=%d cols=%d dstStride=%d srcStride=%d groupStride=%d g=%d)", rows, cols, ds, ss, gs, g))
	}
	if rows == 0 || cols == 0 {
		return
	}
	end := tileRow(rows-1, ss, gs, g)
	if rows > g {
		end = max(end, tileRow((rows-1)/g*g-1, ss, gs, g))
	}
	if need := end + cols*4; need > len(src) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose32FromTiles: src too short: need %d bytes, have %d", need, len(src)))
	}
	if need := (cols-1)*ds + rows*4; need > len(dst) || need < 0 {
		panic(fmt.Sprintf("simd: Transpose32FromTiles: dst too short: need %d bytes, have %d", need, len(dst)))
	}
}

func genericTranspose32FromTiles(dst []byte, ds int, src []byte, ss, gs, g int, rows, cols int, stream bool) {
	checkFromTiles(dst, ds, src, ss, gs, g, rows, cols)
	fromTilesRect(dst, ds, src, ss, gs, g, 0, rows, 0, cols)
}

// fromTilesRect transposes source rows [r0,r1) and columns [c0,c1) of a
// Transpose32FromTiles, one source group at a time. Bounds must have been checked.
func fromTilesRect(dst []byte, ds int, src []byte, ss, gs, g int, r0, r1, c0, c1 int) {
	if c0 >= c1 {
		return
	}
	for a := r0 / g * g; a < r1; a += g {
		transposeRect32(dst[4*a:], ds, src[a/g*gs:], ss, max(r0, a)-a, min(r1, a+g)-a, c0, c1)
	}
}
