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
	if p2 := k.pack2[Bits16][Bits16]; p2 != nil {
		ak := &aheadKind{sh: &shPack16, nops: 3, p2: p2, a3: [2]asm3a{a.rows.pack2[Bits16][Bits16], a.rowsNT.pack2[Bits16][Bits16]}}
		ak.vw = vw * b2i(ak.a3[0] != nil)
		k.pack2[Bits16][Bits16] = func(dst, x, y []byte, n int, r Rows) {
			if r.Ahead == 0 {
				p2(dst, x, y, n, r)
				return
			}
			k.ahead(ak, &[5][]byte{dst, x, y}, n, r)
		}
	}
	if p4 := k.pack4[Bits8][Bits8]; p4 != nil {
		ak := &aheadKind{sh: &shPack8x4, nops: 5, p4: p4, a5: [2]asm5a{a.rows.pack4[Bits8][Bits8], a.rowsNT.pack4[Bits8][Bits8]}}
		ak.vw = vw * b2i(ak.a5[0] != nil)
		k.pack4[Bits8][Bits8] = func(dst, r0, r1, r2, r3 []byte, n int, r Rows) {
			if r.Ahead == 0 {
				p4(dst, r0, r1, r2, r3, n, r)
				return
			}
			k.ahead(ak, &[5][]byte{dst, r0, r1, r2, r3}, n, r)
		}
	}
}

// aheadKind is a packing that honours Rows.Ahead: the shape of its nops operands, its
// kernel that does not ask (p2 or p4), and its asking assembly (a3 or a5, with
// ordinary and non-temporal stores; vw elements an iteration, 0 where there is none).
type aheadKind struct {
	sh   *shape
	nops int
	vw   int
	p2   func(dst, x, y []byte, n int, r Rows)
	p4   func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	a3   [2]asm3a
	a5   [2]asm5a
}

// ahead runs a batch of a's kind that asks Ahead: the whole iterations of the
// whole-line loops in a's assembly and the rest of each row in its kernel; or, where
// the batch cannot take the loops, the batch in chunks of rows through its kernel,
// each chunk followed by Prefetch.
func (k *Kernels) ahead(a *aheadKind, ops *[5][]byte, n int, r Rows) {
	if e := aheadLoops(a.sh, ops, a.nops, n, r, a.vw); e > 0 {
		a.asm(ops, e/a.vw, r)
		if r.Ahead = 0; e < n {
			rest := a.sh.from(ops, a.nops, 0, e, r)
			a.plain(&rest, n-e, r)
		}
		return
	}
	k.aheadChunks(a.sh, ops, a.nops, n, r, func(j, m int) {
		chunk := a.sh.from(ops, a.nops, j, 0, r)
		a.plain(&chunk, n, Rows{N: m, DstStride: r.DstStride, SrcStride: r.SrcStride, Hints: Hints{Stream: r.Stream}})
	})
}

// plain runs a's kernel that does not ask on ops.
func (a *aheadKind) plain(ops *[5][]byte, n int, r Rows) {
	if a.p4 != nil {
		a.p4(ops[0], ops[1], ops[2], ops[3], ops[4], n, r)
		return
	}
	a.p2(ops[0], ops[1], ops[2], n, r)
}

// asm runs it iterations of a's asking assembly on each row of ops, with
// non-temporal stores where r.Stream.
func (a *aheadKind) asm(ops *[5][]byte, it int, r Rows) {
	nt := b2i(r.Stream)
	if f := a.a5[nt]; f != nil {
		f(&ops[0][0], &ops[1][0], &ops[2][0], &ops[3][0], &ops[4][0], it, r.N, r.DstStride, r.SrcStride, int(r.Ahead))
		return
	}
	a.a3[nt](&ops[0][0], &ops[1][0], &ops[2][0], it, r.N, r.DstStride, r.SrcStride, int(r.Ahead))
}

// from returns the first nops of ops from element e of row j on (rows r.DstStride or
// r.SrcStride bytes apart, elements sh.w bytes each).
func (sh *shape) from(ops *[5][]byte, nops, j, e int, r Rows) (at [5][]byte) {
	for i := range nops {
		stride := r.SrcStride
		if sh.dst[i] {
			stride = r.DstStride
		}
		at[i] = ops[i][j*stride+e*sh.w[i]:]
	}
	return at
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
