package simd

// Rows.Ahead: the same-type packings ask for the next batch's rows as they read
// this one's.
//
// A caller packing the rows of a row of tiles, a pair or quad of source rows a batch,
// reads each row once from end to end; the hardware prefetchers pick each one up
// afresh at every page, late. Asked for while the batch before works, the rows are in
// flight by the time they are read (bench/design-notes.md).

type (
	asm3a func(x, y, z *byte, it, rows, dstStride, srcStride, ahead int)
	asm5a func(v, w, x, y, z *byte, it, rows, dstStride, srcStride, ahead int)
)

// aheadRows is one kind of a set's batched assembly that asks ahead (ordinary or
// non-temporal stores): the same-type packings (simd/_asm batchedAhead), keyed as the
// lookups are; vw elements an iteration.
type aheadRows struct {
	pack2 [nDTypes][nDTypes]asm3a
	pack4 [nDTypes][nDTypes]asm5a
}

// aheadAsm is a set's asking assembly, with ordinary and non-temporal stores.
type aheadAsm struct{ rows, rowsNT aheadRows }

// aheadChunk is the source bytes of all its rows a batch that cannot ask in its
// assembly runs before asking for the same part of the rows Ahead further: 1 KiB
// cost more calls than it saved, 4 KiB asked for more lines at once than are in
// flight (bench/design-notes.md).
const aheadChunk = 2 << 10

// addAhead makes k's same-type pair and quad packings honour Rows.Ahead: the
// assembly of a (vw elements an iteration; or none) asks as it reads, on the batches
// that take the whole-line loops; the others run in chunks, each followed by
// Prefetch. The generic set, whose Prefetch does nothing, does without.
func addAhead(k *Kernels, a aheadAsm, vw int) {
	if p2, o, nt := k.pack2[Bits16][Bits16], a.rows.pack2[Bits16][Bits16], a.rowsNT.pack2[Bits16][Bits16]; p2 != nil {
		k.pack2[Bits16][Bits16] = func(dst, x, y []byte, n int, r Rows) {
			if r.Ahead == 0 {
				p2(dst, x, y, n, r)
				return
			}
			ops := [5][]byte{dst, x, y}
			if e := aheadLoops(&shPack16, &ops, 3, n, r, vw*b2i(o != nil)); e > 0 {
				f := o
				if r.Stream {
					f = nt
				}
				f(&dst[0], &x[0], &y[0], e/vw, r.N, r.DstStride, r.SrcStride, int(r.Ahead))
				if r.Ahead = 0; e < n {
					p2(dst[4*e:], x[2*e:], y[2*e:], n-e, r)
				}
				return
			}
			k.aheadChunks(&shPack16, &ops, 3, n, r, func(j, m int) {
				s, d := j*r.SrcStride, j*r.DstStride
				p2(dst[d:], x[s:], y[s:], n, Rows{N: m, DstStride: r.DstStride, SrcStride: r.SrcStride, Hints: Hints{Stream: r.Stream}})
			})
		}
	}
	if p4, o, nt := k.pack4[Bits8][Bits8], a.rows.pack4[Bits8][Bits8], a.rowsNT.pack4[Bits8][Bits8]; p4 != nil {
		k.pack4[Bits8][Bits8] = func(dst, r0, r1, r2, r3 []byte, n int, r Rows) {
			if r.Ahead == 0 {
				p4(dst, r0, r1, r2, r3, n, r)
				return
			}
			ops := [5][]byte{dst, r0, r1, r2, r3}
			if e := aheadLoops(&shPack8x4, &ops, 5, n, r, vw*b2i(o != nil)); e > 0 {
				f := o
				if r.Stream {
					f = nt
				}
				f(&dst[0], &r0[0], &r1[0], &r2[0], &r3[0], e/vw, r.N, r.DstStride, r.SrcStride, int(r.Ahead))
				if r.Ahead = 0; e < n {
					p4(dst[4*e:], r0[e:], r1[e:], r2[e:], r3[e:], n-e, r)
				}
				return
			}
			k.aheadChunks(&shPack8x4, &ops, 5, n, r, func(j, m int) {
				s, d := j*r.SrcStride, j*r.DstStride
				p4(dst[d:], r0[s:], r1[s:], r2[s:], r3[s:], n, Rows{N: m, DstStride: r.DstStride, SrcStride: r.SrcStride, Hints: Hints{Stream: r.Stream}})
			})
		}
	}
}

// aheadLoops checks a batch's bounds and returns the elements of each row that the
// asking assembly takes, whole iterations of blk: the batch's whole-line loops,
// with non-temporal stores where it streams (every destination row aligned), or
// ordinary ones where it does not ask to; 0 where the batch takes another path
// (rows to stream from off a line, rows too long to batch, the race detector) or
// there is no such assembly (blk 0).
func aheadLoops(sh *shape, ops *[5][]byte, nops, n int, r Rows, blk int) int {
	if !batch(r, n) {
		return 0
	}
	for i := range nops {
		sh.fits(i, len(ops[i]), r, n)
	}
	if !sh.direct(n, blk) || n < blk || r.Stream && !sh.streams(r, &ops[0][0]) {
		return 0
	}
	return n / blk * blk
}

// aheadChunks runs a batch through run in chunks of rows that read about
// aheadChunk source bytes together; after each it asks for the same part of each
// source row Ahead bytes further, within the source operands.
func (k *Kernels) aheadChunks(sh *shape, ops *[5][]byte, nops, n int, r Rows, run func(j, m int)) {
	if r.N <= 0 {
		return
	}
	read := 0 // source bytes of a row of the batch, over its source operands
	for i := range nops {
		if !sh.dst[i] {
			read += sh.w[i] * n
		}
	}
	per := max(1, aheadChunk/max(read, 1))
	for j := 0; j < r.N; j += per {
		m := min(per, r.N-j)
		run(j, m)
		for i := range nops {
			if sh.dst[i] {
				continue
			}
			from := j*r.SrcStride + int(r.Ahead)
			if to := min(from+(m-1)*r.SrcStride+sh.w[i]*n, len(ops[i])); from < to {
				k.Prefetch(ops[i][from:to])
			}
		}
	}
}
