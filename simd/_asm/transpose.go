package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// unpack emits the low or high interleave of w-byte elements within each
// 128-bit lane: dst = unpack(a, b) with a's elements first.
func unpack(w int, lo bool, a, b, dst reg.VecVirtual) {
	switch {
	case w == 4 && lo:
		VPUNPCKLDQ(b, a, dst)
	case w == 4:
		VPUNPCKHDQ(b, a, dst)
	case w == 2 && lo:
		VPUNPCKLWD(b, a, dst)
	case w == 2:
		VPUNPCKHWD(b, a, dst)
	case w == 1 && lo:
		VPUNPCKLBW(b, a, dst)
	default:
		VPUNPCKHBW(b, a, dst)
	}
}

// laneNetwork transposes, within every 128-bit lane, the E×E matrix of
// w-byte elements held by the E registers rows (E = 16/w): log2(E) rounds
// of unpacks pairing row i with row i+E/2. It returns the output rows.
func laneNetwork(x isa, w int, rows []reg.VecVirtual) []reg.VecVirtual {
	e := len(rows)
	for s := 1; s < e; s *= 2 {
		next := make([]reg.VecVirtual, e)
		for i := 0; i < e/2; i++ {
			lo, hi := x.vec(), x.vec()
			unpack(w, true, rows[i], rows[i+e/2], lo)
			unpack(w, false, rows[i], rows[i+e/2], hi)
			next[2*i], next[2*i+1] = lo, hi
		}
		rows = next
	}
	return rows
}

// genTransposeLanes emits a transpose kernel for w-byte elements on N×N
// register blocks, N = (vector width)/w: 8×8 (AVX2) or 16×16 (AVX-512) for
// 32-bit, 16×16 or 32×32 for 16-bit elements, and 64×64 for 8-bit elements
// on AVX-512 (F and BW only: four rounds of byte unpacks, no VBMI).
//
// The block is handled in V = width/16 column groups of E = 16/w columns.
// For group J, register i gathers, in lane L, the 16 bytes of source row
// E*L+i at column E*J (one load and V-1 lane inserts from memory), so that an
// in-lane E×E transpose of the E registers leaves output row E*J+j in
// register j. Lane inserts from memory avoid cross-lane shuffles. AVX-512's
// 32-bit blocks load whole lines instead (see transposeLines32).
//
// The streaming variant stores non-temporally and leaves the SFENCE to the
// caller, which issues one after many calls (see sfence). Its stores are whole
// cache lines: AVX-512's 16×16 32-bit blocks give each destination row one;
// AVX2's blocks half a line, so its streaming variants transpose two blocks
// down the source at a time and store each row's two halves together (half
// lines streamed block by block lost: bench/design-notes.md).
//
// With narrow, the block has one column group only: N×E blocks (16×4 or 8×4
// for 32-bit), for sources whose rows are narrower than N elements, such as
// the 4 pairs across a transposed T(8,128)(2,1) tile.
func genTransposeLanes(x isa, w int, m mode, narrow bool) {
	e := 16 / w
	v := x.w / 16
	nb := e * v
	groups, base, cols := v, fmt.Sprintf("transpose%d", 8*w), nb
	if narrow {
		groups, base, cols = 1, fmt.Sprintf("transpose%dw%d", 8*w, e), e
	}
	name := fname(base, x, m)
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, n int)")
	Pragma("noescape")
	doc, stack := "", 1 // stack: blocks down the source per step
	if m == streaming {
		doc = " Stores are non-temporal, without SFENCE: destination rows must be aligned to the vector width."
		stack = 64 / (nb * w)
	}
	Doc(fmt.Sprintf("%s transposes n %d×%d blocks of %d-bit elements, going down the source (src += %d*srcStride, dst += %d bytes per block).%s", name, nb*stack, cols, 8*w, nb*stack, nb*w*stack, doc))
	d, ds := param("dst"), param("dstStride")
	s, ss := param("src"), param("srcStride")
	n := param("n")
	lines := x.w == 64 && w == 4 && !narrow // see transposeLines32
	var es, es3 reg.GPVirtual
	if !lines {
		es = GP64() // E*srcStride: distance between lanes
		MOVQ(ss, es)
		SHLQ(U8(log2(e)), es)
	}
	if v == 4 && !lines {
		es3 = GP64()
		LEAQ(Mem{Base: es, Index: es, Scale: 2}, es3)
	}
	blk := GP64() // N*srcStride
	MOVQ(ss, blk)
	SHLQ(U8(log2(nb)), blk)
	// Two blocks' outputs that would not fit the 16 vector registers together (AVX2's
	// 16-bit ones, eight each) keep the first block's on the stack until they are stored.
	spills := stack == 2 && x.w == 32 && e > 4
	var spill Mem
	if spills {
		spill = AllocLocal(e * x.w)
	}

	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	q := GP64()
	MOVQ(d, q)
	if lines {
		transposeLines32(m, s, ss, q, ds)
		groups = 0
	}
	for J := 0; J < groups; J++ {
		outs := make([][]reg.VecVirtual, stack)
		for h := range stack {
			outs[h] = transposeGroup(x, w, m, s, ss, es, es3, blk, J, h)
			if spills && h == 0 {
				for j, v := range outs[h] {
					VMOVDQU(v, spill.Offset(j*x.w))
				}
			}
		}
		for j := 0; j < e; j++ {
			for h := range stack {
				v := outs[h][j]
				if spills && h == 0 {
					v = x.vec()
					VMOVDQU(spill.Offset(j*x.w), v)
				}
				x.store(v, Mem{Base: q, Disp: h * nb * w}, m)
			}
			if J < groups-1 || j < e-1 {
				ADDQ(ds, q)
			}
		}
	}
	for range stack {
		ADDQ(blk, s)
	}
	ADDQ(U32(nb*w*stack), d)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary) // no SFENCE: see above
}

// transposeLines32 transposes the 16×16 block of 32-bit elements at s (rows ss apart)
// into q (rows ds apart) with AVX-512: it loads each source row as one whole line,
// where the lane loads of transposeGroup read every line four times, 16 bytes at a
// time; rows a multiple of 4 KiB apart share an L1 set, and the 16 lines of a block
// did not stay in it between those reads. The network: 32-bit then 64-bit unpacks
// within lanes, then two rounds of 128-bit lane shuffles.
//
// The streaming form asks for the next column block's line of each row into L2
// (PREFETCHT1), not L1: the rows of a block are as many streams, tens to hundreds
// (a 64⁴ permutation's 64 rows 1 MiB apart, a 2-D transpose's 256 rows 32 KiB apart),
// and prefetches into L1 take the few L1 miss buffers that the loads wait for. AVX2's
// lane loads keep PREFETCHT0, where T1 did not gain (bench/design-notes.md).
func transposeLines32(m mode, s, ss, q, ds reg.GPVirtual) {
	if m == streaming {
		transposeHalves32(s, ss, q, ds)
		return
	}
	for j, o := range lines32(m, s, ss, transposeAhead) {
		if j > 0 {
			ADDQ(ds, q)
		}
		avx512.store(o, Mem{Base: q}, m)
	}
}

// lines32 loads the 16×16 block of 32-bit elements at s (rows ss apart), one whole
// line a row, and returns its 16 output rows (transposeLines32's loads and network);
// streaming, it asks for each row's line ahead bytes on into L2.
func lines32(m mode, s, ss reg.GPVirtual, ahead int) []reg.VecVirtual {
	p := GP64()
	MOVQ(s, p)
	rows := make([]reg.VecVirtual, 16)
	for i := range rows {
		rows[i] = ZMM()
		VMOVDQU64(Mem{Base: p}, rows[i])
		if m == streaming {
			PREFETCHT1(Mem{Base: p, Disp: ahead})
		}
		if i < 15 {
			ADDQ(ss, p)
		}
	}
	a := make([]reg.VecVirtual, 16)
	for i := 0; i < 8; i++ {
		a[2*i], a[2*i+1] = ZMM(), ZMM()
		VPUNPCKLDQ(rows[2*i+1], rows[2*i], a[2*i])
		VPUNPCKHDQ(rows[2*i+1], rows[2*i], a[2*i+1])
	}
	// b[4k+c], lane L: column 4L+c of rows 4k..4k+3.
	b := make([]reg.VecVirtual, 16)
	for k := 0; k < 4; k++ {
		for h := 0; h < 2; h++ {
			lo, hi := ZMM(), ZMM()
			VPUNPCKLQDQ(a[4*k+2+h], a[4*k+h], lo)
			VPUNPCKHQDQ(a[4*k+2+h], a[4*k+h], hi)
			b[4*k+2*h], b[4*k+2*h+1] = lo, hi
		}
	}
	out := make([]reg.VecVirtual, 16)
	for c := 0; c < 4; c++ {
		c1, c2, d1, d2 := ZMM(), ZMM(), ZMM(), ZMM()
		VSHUFI32X4(U8(0x44), b[4+c], b[c], c1)    // lanes 0, 1 of rows 0-3, then of rows 4-7
		VSHUFI32X4(U8(0xEE), b[4+c], b[c], c2)    // lanes 2, 3
		VSHUFI32X4(U8(0x44), b[12+c], b[8+c], d1) // rows 8-15 likewise
		VSHUFI32X4(U8(0xEE), b[12+c], b[8+c], d2)
		for L, src := range [][2]reg.VecVirtual{{c1, d1}, {c1, d1}, {c2, d2}, {c2, d2}} {
			o := ZMM()
			imm := U8(0x88) // even lanes: column 4L+c for L = 0 (from c1/d1) or 2
			if L%2 == 1 {
				imm = U8(0xDD)
			}
			VSHUFI32X4(imm, src[1], src[0], o)
			out[4*L+c] = o
		}
	}
	return out
}

// transposeHalves32 is transposeLines32's streaming form. Its first stage, the
// exchange of 256-bit halves between rows r and r+4, is done by the loads: besides
// each row's whole line it loads the half that the row's partner needs as a 256-bit
// broadcast, and a blend (VPBLENDMD, which any vector ALU runs) takes the halves
// into place: 48 shuffles a block instead of 64, where the streamed transposes
// waited on the shuffles, not only on memory (bench/design-notes.md). A partner's line is loaded right
// after the row's, so the second read of each line hits L1 even when all 16 rows
// share an L1 set (rows a multiple of 4 KiB apart).
//
// Register P[4g+r] (g = 0, 1: rows 8g+r, r < 4) holds the low halves of rows 8g+r
// and 8g+r+4, P[8+4g+r] their high halves; the in-lane 4×4 transposes of each four
// give lane L of U[4q+t] column 4(L%2)+t of a half's four rows of row group L/2,
// and VSHUFI32X4 gathers the four row groups' lanes of each output row.
func transposeHalves32(s, ss, q, ds reg.GPVirtual) {
	k := K()
	half := GP32()
	MOVL(U32(0xFF00), half)
	KMOVW(half, k)
	p, ss4 := GP64(), GP64()
	MOVQ(s, p)
	MOVQ(ss, ss4)
	SHLQ(U8(2), ss4)
	P := make([]reg.VecVirtual, 16)
	for g := 0; g < 2; g++ {
		for r := 0; r < 4; r++ {
			a, b := Mem{Base: p}, Mem{Base: p, Index: ss4, Scale: 1}
			x, w, y, z := ZMM(), ZMM(), ZMM(), ZMM()
			VMOVDQU64(a, x)
			PREFETCHT1(a.Offset(transposeAhead))
			VBROADCASTI64X4(a.Offset(32), z)
			VMOVDQU64(b, w)
			PREFETCHT1(b.Offset(transposeAhead))
			VBROADCASTI64X4(b, y)
			VPBLENDMD(y, x, k, x) // low halves: row a's, then row b's
			VPBLENDMD(w, z, k, z) // high halves
			P[4*g+r], P[8+4*g+r] = x, z
			if g == 0 || r < 3 {
				ADDQ(ss, p)
			}
			if g == 0 && r == 3 {
				ADDQ(ss4, p)
			}
		}
	}
	U := make([]reg.VecVirtual, 16)
	for qd := 0; qd < 4; qd++ {
		in := P[4*qd : 4*qd+4]
		a := make([]reg.VecVirtual, 4)
		for i := range a {
			a[i] = ZMM()
		}
		VPUNPCKLDQ(in[1], in[0], a[0])
		VPUNPCKHDQ(in[1], in[0], a[1])
		VPUNPCKLDQ(in[3], in[2], a[2])
		VPUNPCKHDQ(in[3], in[2], a[3])
		for t := 0; t < 4; t++ {
			U[4*qd+t] = ZMM()
		}
		VPUNPCKLQDQ(a[2], a[0], U[4*qd+0])
		VPUNPCKHQDQ(a[2], a[0], U[4*qd+1])
		VPUNPCKLQDQ(a[3], a[1], U[4*qd+2])
		VPUNPCKHQDQ(a[3], a[1], U[4*qd+3])
	}
	out := make([]reg.VecVirtual, 16)
	for h := 0; h < 2; h++ {
		for t := 0; t < 4; t++ {
			u, v := U[8*h+t], U[8*h+4+t]
			o0, o1 := ZMM(), ZMM()
			VSHUFI32X4(U8(0x88), v, u, o0) // lanes 0, 2 of u, then of v
			VSHUFI32X4(U8(0xDD), v, u, o1) // lanes 1, 3
			out[8*h+t], out[8*h+4+t] = o0, o1
		}
	}
	for j, o := range out {
		if j > 0 {
			ADDQ(ds, q)
		}
		avx512.store(o, Mem{Base: q}, streaming)
	}
}

// transposeGroup loads column group J of the h-th block down from s and transposes
// it in the lanes: the group's E output rows.
func transposeGroup(x isa, w int, m mode, s, ss, es, es3, blk reg.GPVirtual, J, h int) []reg.VecVirtual {
	e, v := 16/w, x.w/16
	p := GP64()
	MOVQ(s, p)
	for range h {
		ADDQ(blk, p)
	}
	rows := make([]reg.VecVirtual, e)
	for i := 0; i < e; i++ {
		r := x.vec()
		// A broadcast load defines the whole register (a plain
		// xmm load would leave the upper lanes live-in for avo's
		// register allocator) and costs only a load uop.
		if x.w == 64 {
			VBROADCASTI32X4(Mem{Base: p, Disp: 16 * J}, r)
		} else {
			VBROADCASTI128(Mem{Base: p, Disp: 16 * J}, r)
		}
		for L := 1; L < v; L++ {
			lane := laneMem(p, es, es3, L, 16*J)
			if x.w == 64 {
				VINSERTI32X4(U8(L), lane, r, r)
			} else {
				VINSERTI128(U8(L), lane, r, r)
			}
		}
		if m == streaming && w == 4 && J == 0 {
			// The next column block's source lines, which the loads of this one
			// do not lead the prefetchers to; 32-bit only, where it gained
			// (bench/design-notes.md).
			for L := 0; L < v; L++ {
				PREFETCHT0(laneMem(p, es, es3, L, transposeAhead))
			}
		}
		rows[i] = r
		if i < e-1 {
			ADDQ(ss, p)
		}
	}
	return laneNetwork(x, w, rows)
}

// transposeAhead is how far past a streaming 32-bit transpose's loads it prefetches:
// the next column block's lines (128 bytes did no better).
const transposeAhead = 64

// tilesAhead is how far past its loads the AVX-512 streaming tile transpose asks for
// its source: two column blocks on (one block on, transposeAhead, gained less there:
// bench/design-notes.md).
const tilesAhead = 128

// laneMem addresses lane L's row of a transpose block: p plus L*es, plus disp.
func laneMem(p, es, es3 reg.GPVirtual, L, disp int) Mem {
	switch L {
	case 1:
		return Mem{Base: p, Index: es, Scale: 1, Disp: disp}
	case 2:
		return Mem{Base: p, Index: es, Scale: 2, Disp: disp}
	case 3:
		return Mem{Base: p, Index: es3, Scale: 1, Disp: disp}
	}
	return Mem{Base: p, Disp: disp}
}

// genTranspose32h4 emits the 32-bit transpose of 4×N blocks (N = 16 on
// AVX-512, 8 on AVX2): four whole source rows, for destinations whose rows
// are 4 elements wide (a transposed T(8,128)(2,1) tile read back). Register i
// holds source row i; the in-lane 4×4 transpose leaves, in lane L of output
// j, destination row 4L+j, stored as 16 bytes.
func genTranspose32h4(x isa) {
	v := x.w / 16
	nb := 4 * v
	name := "transpose32h4" + x.name
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s transposes n 4×%d blocks of 32-bit elements, going along the source rows (src += %d bytes, dst += %d*dstStride per block).", name, nb, x.w, nb))
	d, ds := param("dst"), param("dstStride")
	s, ss := param("src"), param("srcStride")
	n := param("n")
	ss3 := GP64()
	LEAQ(Mem{Base: ss, Index: ss, Scale: 2}, ss3)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	rows := make([]reg.VecVirtual, 4)
	for i, m := range []Mem{{Base: s}, {Base: s, Index: ss, Scale: 1}, {Base: s, Index: ss, Scale: 2}, {Base: s, Index: ss3, Scale: 1}} {
		rows[i] = x.vec()
		x.load(m, rows[i])
	}
	out := laneNetwork(x, 4, rows)
	for L := 0; L < v; L++ {
		for j, o := range out {
			switch {
			case L == 0:
				VMOVDQU(o.AsX(), Mem{Base: d})
			case x.w == 64:
				VEXTRACTI32X4(U8(L), o, Mem{Base: d})
			default:
				VEXTRACTI128(U8(L), o, Mem{Base: d})
			}
			if L < v-1 || j < 3 {
				ADDQ(ds, d)
			}
		}
	}
	ADDQ(ds, d) // past the block's last row: nb rows on in all
	ADDQ(U32(x.w), s)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary)
}

// genSfence emits sfence, which orders the non-temporal stores of the
// streaming transposes before any later store.
func genSfence() {
	TEXT("sfence", NOSPLIT, "func()")
	Doc("sfence orders the preceding non-temporal stores before later stores.")
	SFENCE()
	RET()
}

// genPrefetch emits prefetchNTA and prefetchT1, which ask for n cache lines from p
// on with the hint each names: hints, with no effect on any result.
func genPrefetch() {
	for _, h := range []struct {
		name, doc string
		ins       func(Op)
	}{
		{"prefetchNTA", "close to the core, to be evicted first", PREFETCHNTA},
		{"prefetchT1", "into L2 and out", PREFETCHT1},
	} {
		TEXT(h.name, NOSPLIT, "func(p *byte, n int)")
		Pragma("noescape")
		Doc(h.name + " hints that the n 64-byte lines from p will be read soon (" + h.doc + ").")
		p, n := param("p"), param("n")
		TESTQ(n, n)
		JLE(LabelRef("done"))
		Label("loop")
		h.ins(at(p, 0))
		ADDQ(U32(64), p)
		DECQ(n)
		JNZ(LabelRef("loop"))
		Label("done")
		RET()
	}
}

// genTranspose8x16AVX2 emits the 8-bit transpose on 16×16 blocks. Register i
// holds source rows i (low lane) and i+8 (high lane); three rounds of byte
// unpacks give, in register k, columns 2k and 2k+1 as 8-byte halves, which
// VPERMQ puts in order.
func genTranspose8x16AVX2() {
	name := "transpose8AVX2"
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, n int)")
	Pragma("noescape")
	Doc(name + " transposes n 16×16 blocks of bytes, going down the source (src += 16*srcStride, dst += 16 bytes per block).")
	d, ds := param("dst"), param("dstStride")
	s, ss := param("src"), param("srcStride")
	n := param("n")
	es := GP64()
	MOVQ(ss, es)
	SHLQ(U8(3), es)

	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	p, q := GP64(), GP64()
	MOVQ(s, p)
	MOVQ(d, q)
	rows := make([]reg.VecVirtual, 8)
	for i := range rows {
		r := YMM()
		VBROADCASTI128(Mem{Base: p}, r)
		VINSERTI128(U8(1), Mem{Base: p, Index: es, Scale: 1}, r, r)
		rows[i] = r
		if i < 7 {
			ADDQ(ss, p)
		}
	}
	out := laneNetwork(avx2, 1, rows)
	for k, o := range out {
		VPERMQ(U8(0xd8), o, o)
		VMOVDQU(o.AsX(), Mem{Base: q})
		VEXTRACTI128(U8(1), o, Mem{Base: q, Index: ds, Scale: 1})
		if k < 7 {
			ADDQ(ds, q)
			ADDQ(ds, q)
		}
	}
	ADDQ(es, s)
	ADDQ(es, s)
	ADDQ(U32(16), d)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary)
}

// genTranspose8h8 emits the 8-bit transpose of 8×16 blocks (128-bit VEX, so the
// AVX-512 set uses it too): eight whole source rows, for destinations whose rows are 8
// bytes wide (the (8,1) packing of bytes, as int4 unpacked to bytes has in
// T(64,128)(8,1)). Register i holds 16 bytes of source row i; three rounds of byte
// unpacks leave in register k columns 2k and 2k+1 as 8-byte halves, each stored as one
// destination row.
func genTranspose8h8() {
	name := "transpose8h8AVX2"
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, n int)")
	Pragma("noescape")
	Doc(name + " transposes n 8×16 blocks of bytes, going along the source rows (src += 16 bytes, dst += 16*dstStride per block).")
	d, ds := param("dst"), param("dstStride")
	s, ss := param("src"), param("srcStride")
	n := param("n")
	ss3 := GP64()
	LEAQ(Mem{Base: ss, Index: ss, Scale: 2}, ss3)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	p := GP64()
	LEAQ(Mem{Base: s, Index: ss, Scale: 4}, p) // rows 4…7
	rows := make([]reg.VecVirtual, 8)
	for i, m := range []Mem{
		{Base: s}, {Base: s, Index: ss, Scale: 1}, {Base: s, Index: ss, Scale: 2}, {Base: s, Index: ss3, Scale: 1},
		{Base: p}, {Base: p, Index: ss, Scale: 1}, {Base: p, Index: ss, Scale: 2}, {Base: p, Index: ss3, Scale: 1},
	} {
		rows[i] = XMM()
		VMOVDQU(m, rows[i])
	}
	for k, o := range laneNetwork(vex128, 1, rows) {
		VMOVQ(o, Mem{Base: d})
		VMOVHPS(o, Mem{Base: d, Index: ds, Scale: 1})
		ADDQ(ds, d)
		if k < 7 {
			ADDQ(ds, d)
		}
	}
	ADDQ(ds, d) // past the block's last row: 16 rows on in all
	ADDQ(U32(16), s)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary)
}

// genTranspose8w8 emits the 8-bit transpose of 16×8 blocks, the inverse of
// genTranspose8h8's: sixteen source rows of 8 bytes (sources packed (8,1) read back).
// Register b interleaves the bytes of source rows b and b+8, so that the same three
// rounds of unpacks leave destination row k, all 16 bytes, in register k.
func genTranspose8w8() {
	name := "transpose8w8AVX2"
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, n int)")
	Pragma("noescape")
	Doc(name + " transposes n 16×8 blocks of bytes, going down the source (src += 16*srcStride, dst += 16 bytes per block).")
	d, ds := param("dst"), param("dstStride")
	s, ss := param("src"), param("srcStride")
	n := param("n")
	ss8 := GP64()
	MOVQ(ss, ss8)
	SHLQ(U8(3), ss8)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	p, q := GP64(), GP64()
	MOVQ(s, p)
	rows := make([]reg.VecVirtual, 8)
	for b := range rows {
		lo, hi := XMM(), XMM()
		VMOVQ(Mem{Base: p}, lo)
		VMOVQ(Mem{Base: p, Index: ss8, Scale: 1}, hi)
		rows[b] = XMM()
		VPUNPCKLBW(hi, lo, rows[b])
		if b < 7 {
			ADDQ(ss, p)
		}
	}
	MOVQ(d, q)
	for k, o := range laneNetwork(vex128, 1, rows) {
		VMOVDQU(o, Mem{Base: q})
		if k < 7 {
			ADDQ(ds, q)
		}
	}
	ADDQ(ss8, s)
	ADDQ(ss8, s)
	ADDQ(U32(16), d)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary)
}

// broadcast128 loads the 16 bytes at m into every lane of r: it defines the whole
// register (see genTransposeLanes) for a load uop.
func (x isa) broadcast128(m Mem, r reg.VecVirtual) {
	if x.w == 64 {
		VBROADCASTI32X4(m, r)
	} else {
		VBROADCASTI128(m, r)
	}
}

// insert128 loads the 16 bytes at m into lane L of r.
func (x isa) insert128(L int, m Mem, r reg.VecVirtual) {
	if x.w == 64 {
		VINSERTI32X4(U8(L), m, r, r)
	} else {
		VINSERTI128(U8(L), m, r, r)
	}
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// genTranspose32Tiles emits the 32-bit transpose of 16×16 blocks whose destination
// rows come in groups of g (2, 4 or 8: the rows of a TPU tile of 32-bit units; 2 is
// an 8-bit T(8,128)(4,1) tile),
// groupStride bytes apart: output row r goes to dst + (r/g)*groupStride +
// (r%g)*dstStride. A source line of 16 units then feeds two or four tiles with whole
// lines, where blocks one tile wide load half lines and store 16-byte pieces. AVX-512
// loads each source row as one whole line and, streaming, asks for the line two
// column blocks on into L2 (transposeLines32's loads and network, tilesAhead). AVX2's lane
// loads and in-lane network are genTransposeLanes's; it does each block's 16
// source rows as two halves of 8 (its registers hold two lanes, rows 4L+i) and
// stores the halves' outputs to the two halves of each destination line back to
// back, so that non-temporal stores still fill whole lines.
func genTranspose32Tiles(x isa, g int, m mode) {
	const e, nb = 4, 16
	v := x.w / 16
	halves := nb / (e * v)
	name := fname(fmt.Sprintf("transpose32g%d", g), x, m)
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, groupStride int, src *byte, srcStride int, n int)")
	Pragma("noescape")
	doc := ""
	if m == streaming {
		doc = " Stores are non-temporal, without SFENCE: destination rows must be aligned to 64 bytes."
	}
	Doc(fmt.Sprintf("%s transposes n 16×16 blocks of 32-bit elements into groups of %d destination rows groupStride apart, going down the source (src += 16*srcStride, dst += 64 bytes per block).%s", name, g, doc))
	d, ds, gs := param("dst"), param("dstStride"), param("groupStride")
	s, ss := param("src"), param("srcStride")
	n := param("n")
	var es, es3 reg.GPVirtual // lane distances of AVX2's lane loads
	if x.w != 64 {
		es = GP64()
		MOVQ(ss, es)
		SHLQ(U8(log2(e)), es)
		es3 = GP64()
		LEAQ(Mem{Base: es, Index: es, Scale: 2}, es3)
	}
	blk := GP64()
	MOVQ(ss, blk)
	SHLQ(U8(log2(nb)), blk)

	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	qg, q := GP64(), GP64() // the current group's first row, the current row
	MOVQ(d, qg)
	MOVQ(d, q)
	next := func(r int) { // past output row r
		switch {
		case r == nb-1:
		case (r+1)%g == 0:
			ADDQ(gs, qg)
			MOVQ(qg, q)
		default:
			ADDQ(ds, q)
		}
	}
	if x.w == 64 {
		// Whole-line loads, as the AVX-512 plain transpose's (see transposeLines32).
		for r, o := range lines32(m, s, ss, tilesAhead) {
			x.store(o, Mem{Base: q}, m)
			next(r)
		}
	}
	for J := 0; J < nb/e && x.w != 64; J++ {
		out := make([][]reg.VecVirtual, halves)
		for h := range out {
			p := GP64()
			MOVQ(s, p)
			rows := make([]reg.VecVirtual, e)
			for i := 0; i < e; i++ {
				r := x.vec()
				x.broadcast128(laneMem(p, es, es3, v*h, 16*J), r)
				for L := 1; L < v; L++ {
					x.insert128(L, laneMem(p, es, es3, v*h+L, 16*J), r)
				}
				if m == streaming && J == 0 {
					for L := 0; L < v; L++ {
						PREFETCHT0(laneMem(p, es, es3, v*h+L, transposeAhead))
					}
				}
				rows[i] = r
				if i < e-1 {
					ADDQ(ss, p)
				}
			}
			out[h] = laneNetwork(x, 4, rows)
		}
		for j := 0; j < e; j++ {
			r := e*J + j
			for h := range out {
				x.store(out[h][j], Mem{Base: q, Disp: h * x.w}, m)
			}
			next(r)
		}
	}
	ADDQ(blk, s)
	ADDQ(U32(nb*4), d)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary) // no SFENCE: the caller fences
}

// genTranspose32FromTiles emits genTranspose32Tiles's inverse: the 32-bit transpose
// of 16×16 blocks whose source rows come in groups of g (2, 4 or 8), groupStride apart:
// source row r is at src + (r/g)*groupStride + (r%g)*srcStride (the rows of 16/g TPU
// tiles of 32-bit units, read back into 64-byte destination rows). Register i of
// column group J gathers, in lane L, source row 4L+i, as genTransposeLanes's loads
// do; AVX2 does rows 0…7 and 8…15 as two halves, as genTranspose32Tiles does.
func genTranspose32FromTiles(x isa, g int, m mode) {
	const e, nb = 4, 16
	v := x.w / 16
	halves := nb / (e * v)
	name := fname(fmt.Sprintf("transpose32f%d", g), x, m)
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, groupStride int, n int)")
	Pragma("noescape")
	doc := ""
	if m == streaming {
		doc = " Stores are non-temporal, without SFENCE: destination rows must be aligned to 64 bytes."
	}
	Doc(fmt.Sprintf("%s transposes n 16×16 blocks of 32-bit elements from groups of %d source rows groupStride apart, going down the source (src += %d*groupStride, dst += 64 bytes per block).%s", name, g, nb/g, doc))
	d, ds := param("dst"), param("dstStride")
	s, ss, gs := param("src"), param("srcStride"), param("groupStride")
	n := param("n")
	// Row 4L's offset from the running pointer: 2L*groupStride (g = 2), L*groupStride
	// (g = 4), or 0, 4*srcStride, groupStride, groupStride + 4*srcStride (g = 8).
	var a1, a2, a3 reg.GPVirtual
	a1, a2, a3 = GP64(), GP64(), GP64()
	// With g = 2, row 4L+2 starts the next group: the step from row 4L+1 to it.
	var next reg.GPVirtual
	switch g {
	case 2:
		MOVQ(gs, a1)
		SHLQ(U8(1), a1)
		LEAQ(Mem{Base: a1, Index: a1, Scale: 1}, a2)
		LEAQ(Mem{Base: a2, Index: a1, Scale: 1}, a3)
		next = GP64()
		MOVQ(gs, next)
		SUBQ(ss, next)
	case 4:
		MOVQ(gs, a1)
		LEAQ(Mem{Base: gs, Index: gs, Scale: 1}, a2)
		LEAQ(Mem{Base: gs, Index: gs, Scale: 2}, a3)
	default:
		MOVQ(ss, a1)
		SHLQ(U8(2), a1)
		MOVQ(gs, a2)
		LEAQ(Mem{Base: gs, Index: a1, Scale: 1}, a3)
	}
	lane := func(p reg.GPVirtual, L, disp int) Mem {
		switch L {
		case 1:
			return Mem{Base: p, Index: a1, Scale: 1, Disp: disp}
		case 2:
			return Mem{Base: p, Index: a2, Scale: 1, Disp: disp}
		case 3:
			return Mem{Base: p, Index: a3, Scale: 1, Disp: disp}
		}
		return Mem{Base: p, Disp: disp}
	}
	blk := GP64()
	MOVQ(gs, blk)
	SHLQ(U8(log2(nb/g)), blk)

	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	q := GP64()
	MOVQ(d, q)
	for J := 0; J < nb/e; J++ {
		out := make([][]reg.VecVirtual, halves)
		for h := range out {
			p := GP64()
			MOVQ(s, p)
			rows := make([]reg.VecVirtual, e)
			for i := 0; i < e; i++ {
				r := x.vec()
				x.broadcast128(lane(p, v*h, 16*J), r)
				for L := 1; L < v; L++ {
					x.insert128(L, lane(p, v*h+L, 16*J), r)
				}
				rows[i] = r
				switch {
				case i == e-1:
				case g == 2 && i == 1:
					ADDQ(next, p)
				default:
					ADDQ(ss, p)
				}
			}
			out[h] = laneNetwork(x, 4, rows)
		}
		for j := 0; j < e; j++ {
			for h := range out {
				x.store(out[h][j], Mem{Base: q, Disp: h * x.w}, m)
			}
			if J < nb/e-1 || j < e-1 {
				ADDQ(ds, q)
			}
		}
	}
	ADDQ(blk, s)
	ADDQ(U32(nb*4), d)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	finish(ordinary) // no SFENCE: the caller fences
}
