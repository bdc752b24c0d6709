// Command _asm generates the amd64 assembly of package simd with avo.
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
		genCopy(x, false)
		genCopy(x, true)
		genFill(x)
		for _, nt := range []bool{false, true} {
			genInterleave16(x, nt)
			genDeinterleave16(x, nt)
			genF32ToBF16Interleave(x, nt)
			genF32ToBF16(x, nt)
			genBF16ToF32(x, nt)
			genBF16DeinterleaveToF32(x, nt)
			genInterleave8x4(x, nt)
			genDeinterleave8x4(x, nt)
			genF32ToF16(x, nt)
			genF32ToF16Interleave(x, nt)
			genF16ToF32(x, nt)
		}
	}
	genTransposeLanes(avx2, 4)
	genTransposeLanes(avx2, 2)
	genTranspose8x16AVX2()
	genTransposeLanes(avx512, 4)
	genTransposeLanes(avx512, 2)
	genTransposeLanes(avx512, 1)

	Generate()
}

// isa describes one vector width and instruction set.
type isa struct {
	name string // suffix of the generated function names
	w    int    // vector width in bytes
}

var (
	avx2   = isa{"AVX2", 32}
	avx512 = isa{"AVX512", 64}
)

func (x isa) vec() reg.VecVirtual {
	if x.w == 64 {
		return ZMM()
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

// store writes v to m, with a non-temporal store if nt (m must then be
// aligned to the vector width).
func (x isa) store(v reg.VecVirtual, m Mem, nt bool) {
	switch {
	case nt:
		VMOVNTDQ(v, m)
	case x.w == 64:
		VMOVDQU64(v, m)
	default:
		VMOVDQU(v, m)
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

// stream is one pointer of a streaming kernel and how far it advances per
// loop iteration (in bytes).
type stream struct {
	p    reg.GPVirtual
	step int
}

func param(name string) reg.GPVirtual {
	r := GP64()
	Load(Param(name), r)
	return r
}

// loop emits "for ; n > 0; n-- { body(); advance streams }". body is called
// unroll times with k = 0..unroll-1; it should address its streams at
// displacement k*step.
func loop(n reg.GPVirtual, unroll int, streams []stream, body func(k int)) {
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

func finish(nt bool) {
	if nt {
		SFENCE()
	}
	VZEROUPPER()
	RET()
}

func fname(base string, x isa, nt bool) string {
	if nt {
		base += "NT"
	}
	return base + x.name
}

func at(p reg.GPVirtual, disp int) Mem { return Mem{Base: p, Disp: disp} }

func ntDoc(nt bool) string {
	if nt {
		return " Stores are non-temporal: destinations must be aligned to the vector width."
	}
	return ""
}
