// Command _asm generates the amd64 assembly of package simd with avo.
//
// Beside the assembly and its stubs it writes tables_amd64.go, which puts each
// kernel in its set's tables under the key package simd's lookups take (tables.go).
//
// It lives in its own module so that avo and x/tools never enter the main
// module's dependency graph. Regenerate with
//
//	cd simd/_asm && go generate
//
// and check the committed output with bash check.sh.
package main

import (
	"fmt"
	"os"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

//go:generate go run . -out ../kernels_amd64.s -stubs ../kernels_amd64.go -pkg simd

func main() {
	// avo inspects GOOS/GOARCH for the generated constraints; pin them so the
	// output does not depend on the host (https://github.com/mmcloughlin/avo/issues/450).
	os.Setenv("GOOS", "linux")
	os.Setenv("GOARCH", "amd64")

	ConstraintExpr("amd64,gc,!purego,!noasm")

	for _, x := range []isa{avx2, avx512} {
		genFill(x)
		for _, m := range []mode{ordinary, streaming, batched, batchedStreaming, batchedEdges, batchedRowEdges} {
			if (m == batchedEdges || m == batchedRowEdges) && x.w == 64 {
				continue // the AVX-512 set runs AVX2's, which did better (bench/design-notes.md)
			}
			if m == batchedRowEdges {
				// The untilings into rows whose starts differ within a line; their
				// destination blocks are at least a line (see rowEdges).
				genCopy(x, m)
				genDeinterleave16(x, m)
				genBF16DeinterleaveToF32(x, m)
				genExtract16(x, m, false)
				genExtract16(x, m, true)
				genBF16ExtractToF32(x, m, false)
				genBF16ExtractToF32(x, m, true)
				continue
			}
			genCopy(x, m)
			genInterleave16(x, m)
			genDeinterleave16(x, m)
			genF32ToBF16Interleave(x, m)
			genF32ToBF16(x, m)
			genBF16ToF32(x, m)
			genBF16DeinterleaveToF32(x, m)
			genInterleave8x4(x, m)
			genDeinterleave8x4(x, m)
			genF32ToF16(x, m)
			genF32ToF16Interleave(x, m)
			genF16ToF32(x, m)
		}
		// The same-type packings, whose callers ask ahead for the next batch's rows
		// (Rows.Ahead).
		for _, m := range []mode{batchedAhead, batchedStreamingAhead, batchedAheadT1, batchedStreamingAheadT1} {
			genInterleave16(x, m)
			genInterleave8x4(x, m)
		}
	}
	for _, x := range []isa{avx2, avx512} {
		for _, m := range []mode{batched, batchedStreaming} {
			genF32ToF8Interleave(x, f8E4M3FN, "F32", m)
			genF32ToF8Interleave(x, f8E5M2, "F32", m)
			genSplitNibbles(x, m)
			genSplitNibbleWords(x, m)
			if x.w == 64 && m == batchedStreaming {
				genSplitNibbleWordsPair(x, m)
			}
			genJoinNibbleWords(x, m)
			genJoinNibbles(x, m)
			genPackNibblePairs(x, m)
			genUnpackNibblePairs(x, m)
			genF32ToF8(x, f8E4M3FN, "F32", m)
			genF32ToF8(x, f8E5M2, "F32", m)
			genF8DeinterleaveToF32(x, widenE4M3FN, m)
			genF8DeinterleaveToF32(x, widenE5M2, m)
			genF8ToF32(x, widenE4M3FN, m)
			genF8ToF32(x, widenE5M2, m)
			for _, f := range []f8Widen{widenE4M3FN, widenE5M2} {
				genF8To16(x, f, true, m)
				genF8To16(x, f, false, m)
			}
			if x.w == 64 {
				for _, f := range []f8Widen{widenE4M3FN, widenE5M2} {
					genF8To16VBMI(f, true, m)
					genF8To16VBMI(f, false, m)
					genF8QuadsTo16VBMI(f, true, m)
					genF8QuadsTo16VBMI(f, false, m)
				}
			}
			for _, from := range []string{"BF16", "F16"} {
				genF32ToF8(x, f8E4M3FN, from, m)
				genF32ToF8(x, f8E5M2, from, m)
				genF32ToF8Interleave(x, f8E4M3FN, from, m)
				genF32ToF8Interleave(x, f8E5M2, from, m)
			}
		}
	}
	for _, m := range []mode{ordinary, streaming} {
		genTransposeLanes(avx2, 4, m, false)
		genTransposeLanes(avx2, 2, m, false)
	}
	genTranspose8x16AVX2()
	for _, m := range []mode{ordinary, streaming} {
		genTransposeLanes(avx512, 4, m, false)
		genTransposeLanes(avx512, 2, m, false)
		genTransposeLanes(avx512, 1, m, false)
	}
	for _, x := range []isa{avx2, avx512} {
		for _, m := range []mode{ordinary, streaming} {
			genTranspose32Tiles(x, 8, m)
			genTranspose32Tiles(x, 4, m)
			genTranspose32Tiles(x, 2, m)
			genTranspose32FromTiles(x, 8, m)
			genTranspose32FromTiles(x, 4, m)
			genTranspose32FromTiles(x, 2, m)
		}
	}
	genTransposeLanes(avx2, 4, ordinary, true)
	genTransposeLanes(avx512, 4, ordinary, true)
	genTranspose32h4(avx2)
	genTranspose32h4(avx512)
	genTranspose8h8()
	genTranspose8w8()
	genTransposeWordsNT(4)
	genTransposeWordsNT(2)
	genCopyHalves()
	genSfence()
	genCopyString()
	genPrefetch()

	Generate()
	writeTables()
}

// isa describes one vector width and instruction set.
type isa struct {
	name string // suffix of the generated function names
	w    int    // vector width in bytes
}

var (
	avx2   = isa{"AVX2", 32}
	avx512 = isa{"AVX512", 64}
	vex128 = isa{"AVX2", 16} // AVX2's set, on 128-bit registers
)

func (x isa) vec() reg.VecVirtual {
	switch x.w {
	case 64:
		return ZMM()
	case 16:
		return XMM()
	}
	return YMM()
}

func (x isa) load(m Mem, v reg.VecVirtual) {
	if x.w == 64 {
		VMOVDQU64(m, v)
	} else {
		VMOVDQU(m, v)
	}
}

// store writes v to mem, with a non-temporal store when streaming (mem must
// then be aligned to the vector width).
func (x isa) store(v reg.VecVirtual, mem Mem, m mode) {
	switch {
	case m.edges() && edgePhase != 0:
		edgeStore(x, v, mem)
	case m.nt():
		VMOVNTDQ(v, mem)
	case x.w == 64:
		VMOVDQU64(v, mem)
	default:
		VMOVDQU(v, mem)
	}
}

func (x isa) and(a, b Op, dst reg.VecVirtual) {
	if x.w == 64 {
		VPANDD(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

func (x isa) or(a, b Op, dst reg.VecVirtual) {
	if x.w == 64 {
		VPORD(a, b, dst)
	} else {
		VPOR(a, b, dst)
	}
}

// broadcast32 returns a vector register holding c in every 32-bit element.
func (x isa) broadcast32(c uint32) reg.VecVirtual {
	v := x.vec()
	VPBROADCASTD(const32(c), v)
	return v
}

// loadTable returns a vector register holding the first x.w bytes of the
// table (repeated if the table is shorter).
func (x isa) loadTable(name string, b []byte) reg.VecVirtual {
	m := table(name, b, x.w)
	v := x.vec()
	x.load(m, v)
	return v
}

var globals = map[string]Mem{}

func const32(c uint32) Mem {
	name := fmt.Sprintf("c32_%08x", c)
	if m, ok := globals[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	DATA(0, U32(c))
	globals[name] = m
	return m
}

// table defines (once) read-only data of w bytes made of repeated copies of b.
func table(name string, b []byte, w int) Mem {
	name = fmt.Sprintf("%s_%d", name, w)
	if m, ok := globals[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < w; i++ {
		DATA(i, U8(b[i%len(b)]))
	}
	globals[name] = m
	return m
}

// qwordTable and dwordTable build permutation-index tables.
func qwordTable(idx ...uint64) []byte {
	b := make([]byte, 0, 8*len(idx))
	for _, v := range idx {
		for i := 0; i < 8; i++ {
			b = append(b, byte(v>>(8*i)))
		}
	}
	return b
}

func dwordTable(idx ...uint32) []byte {
	b := make([]byte, 0, 4*len(idx))
	for _, v := range idx {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return b
}

func wordTable(idx ...uint16) []byte {
	b := make([]byte, 0, 2*len(idx))
	for _, v := range idx {
		b = append(b, byte(v), byte(v>>8))
	}
	return b
}

// stream is one pointer of a kernel, how far it advances per loop iteration
// (in bytes), and whether it is a destination (batches give destinations and
// sources different row strides).
type stream struct {
	p    reg.GPVirtual
	step int
	out  bool
}

// mode is the variant of a kernel: ordinary or non-temporal stores, on one
// row or on a batch of rows. Batches with non-temporal stores leave the
// SFENCE to the caller, who issues one after many batches.
type mode int

const (
	ordinary mode = iota
	streaming
	batched
	batchedStreaming
	// batchedEdges is batchedStreaming for destination rows that all start the
	// same distance past a line (AVX2's, which the AVX-512 set runs too): each
	// row has a head block that writes the bytes before the line with MOVNTI,
	// the streaming loop, and a tail block that streams its whole vectors and
	// the rest with MOVNTI. See edges.go for the edges argument.
	batchedEdges
	// batchedRowEdges is batchedEdges for rows whose distance past a line differs
	// from row to row (rows not a multiple of 64 bytes apart): each row's head,
	// iterations and tail are computed from its first destination's address.
	batchedRowEdges
	// batchedAhead and batchedStreamingAhead are batched and batchedStreaming that
	// also ask for the lines ahead bytes past each source line they read (the
	// same part of the rows the caller's next batch reads; see Rows.Ahead), with
	// PREFETCHNTA; the T1 forms with PREFETCHT1 (the hint Prefetch gives on Intel).
	batchedAhead
	batchedStreamingAhead
	batchedAheadT1
	batchedStreamingAheadT1
)

func (m mode) nt() bool {
	return m == streaming || m == batchedStreaming || m == batchedEdges || m == batchedRowEdges || m == batchedStreamingAhead || m == batchedStreamingAheadT1
}
func (m mode) rows() bool { return m >= batched }
func (m mode) ahead() bool {
	return m == batchedAhead || m == batchedStreamingAhead || m == batchedAheadT1 || m == batchedStreamingAheadT1
}
func (m mode) edges() bool { return m == batchedEdges || m == batchedRowEdges }

// sig returns the Go signature of a kernel in mode m: batches take the row
// count and the destinations' and sources' row strides after n.
func (m mode) sig(s string) string {
	if m.edges() {
		return strings.Replace(s, "n int)", "n, rows, dstStride, srcStride int, edges [8]int)", 1)
	}
	if m.ahead() {
		return strings.Replace(s, "n int)", "n, rows, dstStride, srcStride, ahead int)", 1)
	}
	if m.rows() {
		return strings.Replace(s, "n int)", "n, rows, dstStride, srcStride int)", 1)
	}
	return s
}

func (m mode) doc() string {
	s := ""
	if m.rows() {
		s = " It does so for rows rows, each dstStride bytes further in the destinations and srcStride in the sources."
	}
	if m.ahead() {
		s += " Each source line read asks for the line ahead bytes further (PREFETCHNTA; PREFETCHT1 in the T1 forms)."
	}
	switch m {
	case streaming:
		s += " Stores are non-temporal: destinations must be aligned to the vector width."
	case batchedStreaming, batchedStreamingAhead, batchedStreamingAheadT1:
		s += " Stores are non-temporal, without SFENCE: destinations must be aligned to the vector width."
	case batchedEdges:
		s += " Each row is a head block (edges[0] words stored), n blocks from the line the destinations reach edges[5] bytes on (the sources edges[6]), and a tail block if edges[7] != 0; all stores non-temporal, without SFENCE (see simd/_asm edges.go)."
	case batchedRowEdges:
		s += " Each row is a head block, blocks from the first destination's next line and a tail block, their sizes computed per row from edges[1] (32-bit words of a destination row) and edges[2] (source bytes per such word); n is unused; all stores non-temporal, without SFENCE (see simd/_asm edges.go)."
	}
	return s
}

// loop emits the kernel's loop over n iterations (see loopN); a batch wraps it
// in a loop over rows, which moves each stream from where a row ended to where
// the next one starts.
func (m mode) loop(n reg.GPVirtual, unroll int, streams []stream, body func(k int)) {
	if !m.rows() {
		loopN(n, unroll, streams, body)
		return
	}
	rows := param("rows")
	stride := map[bool]reg.GPVirtual{true: param("dstStride"), false: param("srcStride")}
	type key struct {
		out  bool
		step int
	}
	next := map[key]reg.GPVirtual{} // stride - n*step*unroll, one register per kind of stream
	for _, s := range streams {
		k := key{s.out, s.step}
		if _, ok := next[k]; !ok && m != batchedRowEdges {
			r := GP64()
			IMUL3Q(U32(s.step*unroll), n, r)
			NEGQ(r)
			ADDQ(stride[s.out], r)
			next[k] = r
		}
	}
	if m.edges() {
		edgeScratch = AllocLocal(64)
	}
	var ahead reg.GPVirtual
	if m.ahead() {
		ahead = param("ahead")
	}
	TESTQ(rows, rows)
	JZ(LabelRef("rowsdone"))
	Label("row")
	if m == batchedRowEdges {
		rowEdges(unroll, streams)
	}
	if m.edges() {
		edgeBlock(1, unroll, body)
		for _, s := range streams {
			ADDQ(edgeSlot(edgeStep(s)), s.p)
		}
	}
	i := GP64()
	if m == batchedRowEdges {
		MOVQ(edgeSlot(3), i)
	} else {
		MOVQ(n, i)
	}
	inner := body
	if m.nt() && prefetchable(streams) || m.ahead() {
		body = func(k int) {
			for _, s := range streams {
				for off := 0; !s.out && off < s.step && (k*s.step)%64 == 0; off += 64 {
					if m.nt() {
						PREFETCHNTA(at(s.p, k*s.step+off+prefetchAhead))
					}
					if m.ahead() {
						prefetchHint(m, Mem{Base: s.p, Index: ahead, Scale: 1, Disp: k*s.step + off})
					}
				}
			}
			inner(k)
		}
	}
	loopN(i, unroll, streams, body)
	if m.edges() {
		edgeBlock(2, unroll, inner)
	}
	for _, s := range streams {
		if m == batchedRowEdges {
			t := GP64()
			MOVQ(edgeSlot(3), t) // vet's asmdecl misreads IMUL3Q's memory operand
			IMUL3Q(U32(s.step*unroll), t, t)
			SUBQ(t, s.p)
			ADDQ(stride[s.out], s.p)
		} else {
			ADDQ(next[key{s.out, s.step}], s.p)
		}
		if m.edges() {
			SUBQ(edgeSlot(edgeStep(s)), s.p)
		}
	}
	DECQ(rows)
	JNZ(LabelRef("row"))
	Label("rowsdone")
}

func param(name string) reg.GPVirtual {
	r := GP64()
	Load(Param(name), r)
	return r
}

// loopN emits "for ; n > 0; n-- { body(); advance streams }". body is called
// unroll times with k = 0..unroll-1; it should address its streams at
// displacement k*step.
func loopN(n reg.GPVirtual, unroll int, streams []stream, body func(k int)) {
	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	for k := 0; k < unroll; k++ {
		body(k)
	}
	for _, s := range streams {
		ADDQ(U32(s.step*unroll), s.p)
	}
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
}

func finish(m mode) {
	if m == streaming {
		SFENCE()
	}
	VZEROUPPER()
	RET()
}

// fname names a kernel and records it for its set's table (see record).
func fname(base string, x isa, m mode) string {
	name := base + [...]string{"", "NT", "Rows", "RowsNT", "RowsNTE", "RowsNTW", "RowsA", "RowsNTA", "RowsA1", "RowsNTA1"}[m] + x.name
	record(name, base, x, m)
	return name
}

func at(p reg.GPVirtual, disp int) Mem { return Mem{Base: p, Disp: disp} }

// prefetchHint asks for the line at mem with the hint of an ahead mode m.
func prefetchHint(m mode, mem Mem) {
	if m == batchedAheadT1 || m == batchedStreamingAheadT1 {
		PREFETCHT1(mem)
	} else {
		PREFETCHNTA(mem)
	}
}

// prefetchAhead is how far ahead of each source stream a streaming batch with several
// source rows prefetches (bench/design-notes.md).
const prefetchAhead = 2048

// prefetchable reports whether a streaming batch prefetches its sources: the packing
// kernels, whose two or four source rows the hardware prefetchers followed too late
// (AVX-512 and AVX2 alike). The copy kernel, with one source, lost with it. A body
// prefetches once per line of each source: AVX2's 32-byte steps at the even ones, or at
// every step when a loop iteration moves a source by less than a line.
func prefetchable(streams []stream) bool {
	srcs := 0
	for _, s := range streams {
		if !s.out {
			srcs++
		}
	}
	return srcs >= 2
}
