package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The edges argument of a batchedEdges kernel, eight words the Go wrapper fills
// (simd/edges.go edgePlan):
//
//	0     32-bit words before the destinations' first line (0: no head block)
//	5, 6  bytes from a row's start to that line, destinations and sources
//	7     32-bit words after the streaming loop (0: no tail block)
//
// The head block runs the kernel on a row's first block and stores the words
// before the line; the streaming loop starts at the line; the tail block runs the
// kernel on the block after the loop, whose sources the wrapper has checked lie in
// the slices, streams its whole vectors and stores the rest of the row. The partial
// lines go out with MOVNTI: ordinary stores there would read each such line (its
// other part belongs to the neighbouring run) and cost as much as storing the whole
// row without streaming.

// A batchedRowEdges kernel computes words 0, 5, 6 and 7 for each row from its first
// destination's address, and word 3, the row's iterations, from
//
//	1     32-bit words of a destination row
//	2     source bytes per 32-bit word of a destination
//
// writing them into its own argument (passed by value, so the caller's copy stays).
// Every row's destinations must start at whole words, at least a block and a line
// short of the row's end (the wrapper checks).

// rowEdges emits the computation of a row's edge words at its start.
func rowEdges(unroll int, streams []stream) {
	var d stream
	for _, s := range streams {
		if s.out {
			d = s
			break
		}
	}
	bw := d.step * unroll / 4 // a block's words of each destination
	if bw&(bw-1) != 0 || bw < 16 {
		panic(fmt.Sprintf("block of %d words", bw))
	}
	w, u := GP64(), GP64()
	MOVQ(d.p, w)
	NEGQ(w)
	ANDQ(U8(63), w)
	SHRQ(U8(2), w) // words before the line
	MOVQ(w, edgeSlot(0))
	MOVQ(w, u)
	SHLQ(U8(2), u)
	MOVQ(u, edgeSlot(5))
	MOVQ(w, u)
	IMULQ(edgeSlot(2), u)
	MOVQ(u, edgeSlot(6))
	MOVQ(edgeSlot(1), u)
	SUBQ(w, u) // words from the line on
	MOVQ(u, w)
	ANDQ(U32(bw-1), w)
	MOVQ(w, edgeSlot(7))
	SHRQ(U8(log2(bw)), u)
	MOVQ(u, edgeSlot(3))
}

// edgePhase is 1 while a head block is emitted, 2 for a tail block, else 0;
// edgeScratch is a 64-byte local.
var (
	edgePhase   int
	edgeScratch Mem
	edgeLabel   int
)

// edgeSlot is word i of the edges argument, passed by value (a pointer would make
// the Go caller's array escape to the heap through the function value).
func edgeSlot(i int) Mem {
	b, err := Param("edges").Index(i).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// edgeStep is the slot of a stream's bytes to the line.
func edgeStep(s stream) int {
	if s.out {
		return 5
	}
	return 6
}

func newEdgeLabel(what string) string {
	edgeLabel++
	return fmt.Sprintf("%s%d", what, edgeLabel)
}

// edgeBlock emits the head (phase 1) or tail (phase 2) block of a row: one
// block of the kernel body, skipped when its slot is 0.
func edgeBlock(phase, unroll int, body func(k int)) {
	skip := newEdgeLabel("noedge")
	slot := 0
	if phase == 2 {
		slot = 7
	}
	CMPQ(edgeSlot(slot), U8(0))
	JE(LabelRef(skip))
	edgePhase = phase
	for k := 0; k < unroll; k++ {
		body(k)
	}
	edgePhase = 0
	Label(skip)
}

// edgeStore emits a destination store of a head or tail block (mem at its
// displacement within the block, a multiple of the vector width).
func edgeStore(x isa, v reg.VecVirtual, mem Mem) {
	d := mem.Disp
	if d%x.w != 0 || mem.Index != nil {
		panic(fmt.Sprintf("edge store at %+v", mem))
	}
	slot := 7
	if edgePhase == 1 {
		if d >= 64 { // the head is less than one line
			return
		}
		slot = 0
	}
	// The words this store has: those of the head or tail from d on, at most a vector's.
	t := GP64()
	MOVQ(edgeSlot(slot), t)
	if d > 0 {
		SUBQ(U32(d/4), t)
	}
	skip, whole := newEdgeLabel("skip"), newEdgeLabel("whole")
	CMPQ(t, U32(x.w/4))
	JGE(LabelRef(whole))
	TESTQ(t, t)
	JLE(LabelRef(skip))
	edgeWords(x, v, mem, t)
	JMP(LabelRef(skip))
	Label(whole)
	if edgePhase == 1 {
		edgeWords(x, v, mem, U32(x.w/4)) // a whole AVX2 vector of the head, off a line
	} else {
		VMOVNTDQ(v, mem)
	}
	Label(skip)
}

// edgeWords stores the first count 32-bit words of v at mem with MOVNTI, through
// the scratch line.
func edgeWords(x isa, v reg.VecVirtual, mem Mem, count Op) {
	x.store(v, edgeScratch, ordinary)
	i, t := GP64(), GP32()
	XORQ(i, i)
	loop, done := newEdgeLabel("words"), newEdgeLabel("wordsdone")
	Label(loop)
	CMPQ(i, count)
	JGE(LabelRef(done))
	MOVL(Mem{Base: edgeScratch.Base, Disp: edgeScratch.Disp, Index: i, Scale: 4}, t)
	MOVNTIL(t, Mem{Base: mem.Base, Disp: mem.Disp, Index: i, Scale: 4})
	INCQ(i)
	JMP(LabelRef(loop))
	Label(done)
}

// genTransposeWordsNT emits the transpose of a rows×cols block of w-byte elements
// (w = 4, or 2 with rows even) stored a 32-bit word at a time with MOVNTI: the
// parts of lines before and after a non-temporal transpose's whole lines, whose
// other parts belong to the neighbouring blocks.
func genTransposeWordsNT(w int) {
	name := fmt.Sprintf("transpose%dWordsNT", 8*w)
	TEXT(name, NOSPLIT, "func(dst *byte, dstStride int, src *byte, srcStride int, rows, cols int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s transposes rows×cols %d-bit elements with 32-bit MOVNTI stores, without SFENCE (rows even for 16-bit elements).", name, 8*w))
	d, ds := param("dst"), param("dstStride")
	s, ss := param("src"), param("srcStride")
	rows, cols := param("rows"), param("cols")
	TESTQ(rows, rows)
	JZ(LabelRef("done"))
	TESTQ(cols, cols)
	JZ(LabelRef("done"))
	Label("col")
	p, q, i := GP64(), GP64(), GP64()
	MOVQ(s, p)
	MOVQ(d, q)
	MOVQ(rows, i)
	Label("word")
	t := GP32()
	if w == 4 {
		MOVL(Mem{Base: p}, t)
		ADDQ(ss, p)
		SUBQ(U8(1), i)
	} else {
		u := GP32()
		MOVWLZX(Mem{Base: p}, t)
		MOVWLZX(Mem{Base: p, Index: ss, Scale: 1}, u)
		SHLL(U8(16), u)
		ORL(u, t)
		LEAQ(Mem{Base: p, Index: ss, Scale: 2}, p)
		SUBQ(U8(2), i)
	}
	MOVNTIL(t, Mem{Base: q})
	ADDQ(U8(4), q)
	TESTQ(i, i)
	JNZ(LabelRef("word"))
	ADDQ(U8(w), s)
	ADDQ(ds, d)
	DECQ(cols)
	JNZ(LabelRef("col"))
	Label("done")
	RET()
}
