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
//	1..4  the tail block's stores at 64-byte offsets 0, 64, 128, 192: -1 streams
//	      the whole line, other values are the words to store
//	5, 6  bytes from a row's start to that line, destinations and sources
//	7     nonzero when there is a tail block
//
// The head block runs the kernel on a row's first block and stores the words
// before the line; the streaming loop starts at the line; the tail block runs the
// kernel on the block after the loop, whose sources the wrapper has checked lie in
// the slices, and stores only the row's rest. The partial lines go out with MOVNTI:
// ordinary stores there would read each such line (its other part belongs to the
// neighbouring run) and cost as much as storing the whole row without streaming.

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
// displacement within the block, a multiple of 64).
func edgeStore(v reg.VecVirtual, mem Mem) {
	d := mem.Disp
	if d%64 != 0 || mem.Index != nil || d/64 > 3 {
		panic(fmt.Sprintf("edge store at %+v", mem))
	}
	if edgePhase == 1 {
		if d == 0 { // the head is less than one line
			edgeWords(v, mem, edgeSlot(0))
		}
		return
	}
	t := GP64()
	MOVQ(edgeSlot(1+d/64), t)
	partial, done := newEdgeLabel("partial"), newEdgeLabel("stored")
	CMPQ(t, I8(-1))
	JNE(LabelRef(partial))
	VMOVNTDQ(v, mem)
	JMP(LabelRef(done))
	Label(partial)
	edgeWords(v, mem, t)
	Label(done)
}

// edgeWords stores the first count 32-bit words of v at mem with MOVNTI, through
// the scratch line.
func edgeWords(v reg.VecVirtual, mem Mem, count Op) {
	VMOVDQU64(v, edgeScratch)
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
