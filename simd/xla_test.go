package simd

import (
	"fmt"
	"testing"

	"github.com/tpulayout/tpulayout/internal/xlagolden"
)

// The conversion kernels of every implementation this CPU runs (and, in purego builds,
// the generic ones alone) against XLA's recorded conversions: every recorded f32 input
// narrowed, every recorded bit pattern widened, in runs, batched rows (plain and
// streamed), and the fused pair and quad packings. The 16-bit → f8 and f8 → 16-bit
// kernels have no recording of their own; their expected bits are XLA's conversion of
// the source's exact f32 value (recorded among the inputs), which is what a single
// rounding gives.

// golden is a list of inputs and the bits XLA gives for each.
type golden struct {
	name     string
	win, wo  int // bytes per input and per output element
	in, want []uint64
}

// padded returns g with its first element repeated until the length is a multiple of
// 256, so that rows, pairs and quads divide it evenly.
func (g golden) padded() golden {
	for len(g.in)%256 != 0 {
		g.in, g.want = append(g.in, g.in[0]), append(g.want, g.want[0])
	}
	return g
}

func pack(v []uint64, w int) []byte {
	b := make([]byte, w*len(v))
	for i, x := range v {
		putN(b[w*i:], w, x)
	}
	return b
}

func putN(b []byte, w int, x uint64) {
	switch w {
	case 1:
		b[0] = byte(x)
	case 2:
		le.PutUint16(b, uint16(x))
	default:
		le.PutUint32(b, uint32(x))
	}
}

func getN(b []byte, w int) uint64 {
	switch w {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(le.Uint16(b))
	}
	return uint64(le.Uint32(b))
}

// expect fails t at the first element of out (want's layout: element i at w*i) that
// differs from g.want, and says which input gave it.
func (g golden) expect(t *testing.T, form string, out []byte, order []int) {
	t.Helper()
	for j, i := range order {
		if got := getN(out[g.wo*j:], g.wo); got != g.want[i] {
			t.Errorf("%s %s: input 0x%x → 0x%x, XLA 0x%x", g.name, form, g.in[i], got, g.want[i])
			return
		}
	}
}

func identity(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// runs checks a run kernel (one call over all elements) and its batched form (eight
// rows, plain and streamed).
func (g golden) runs(t *testing.T, k *Kernels, one func(dst, src []byte, n int), rows func(dst, src []byte, n int, r Rows)) {
	g = g.padded()
	n := len(g.in)
	src, order := pack(g.in, g.win), identity(n)
	if one != nil {
		dst := make([]byte, g.wo*n)
		one(dst, src, n)
		g.expect(t, k.Name+" run", dst, order)
	}
	for _, stream := range []bool{false, true} {
		m := n / 8
		dst := make([]byte, g.wo*n)
		rows(dst, src, m, Rows{N: 8, DstStride: g.wo * m, SrcStride: g.win * m, Hints: Hints{Stream: stream}})
		k.Fence()
		g.expect(t, fmt.Sprintf("%s rows (stream %v)", k.Name, stream), dst, order)
	}
}

// interleaved returns the order in which a packing of ways rows of n/ways elements
// each (row q the q-th part of the inputs) lays out the elements: out[ways*i+q] is
// element q*(n/ways)+i.
func interleaved(n, ways int) []int {
	m, o := n/ways, make([]int, 0, n)
	for i := range m {
		for q := range ways {
			o = append(o, q*m+i)
		}
	}
	return o
}

// packs checks a kernel that converts ways rows and interleaves them (a pair kernel
// with ways 2, a quad kernel with 4), batched in two rows, and its single call.
func (g golden) packs(t *testing.T, k *Kernels, ways int, one func(dst []byte, rows [][]byte, n int), batch func(dst []byte, rows [][]byte, n int, r Rows)) {
	g = g.padded()
	n := len(g.in)
	m := n / ways
	src := pack(g.in, g.win)
	parts := make([][]byte, ways)
	for q := range parts {
		parts[q] = src[q*m*g.win : (q+1)*m*g.win]
	}
	order := interleaved(n, ways)
	if one != nil {
		dst := make([]byte, g.wo*n)
		one(dst, parts, m)
		g.expect(t, fmt.Sprintf("%s %d-way packing", k.Name, ways), dst, order)
	}
	for _, stream := range []bool{false, true} {
		dst := make([]byte, g.wo*n)
		batch(dst, parts, m/2, Rows{N: 2, DstStride: ways * g.wo * m / 2, SrcStride: g.win * m / 2, Hints: Hints{Stream: stream}})
		k.Fence()
		g.expect(t, fmt.Sprintf("%s %d-way packing rows (stream %v)", k.Name, ways, stream), dst, order)
	}
}

// unpacks checks the inverse: interleaved inputs split into ways rows, each converted.
func (g golden) unpacks(t *testing.T, k *Kernels, ways int, one func(rows [][]byte, src []byte, n int), batch func(rows [][]byte, src []byte, n int, r Rows)) {
	g = g.padded()
	n := len(g.in)
	m := n / ways
	order := interleaved(n, ways) // the source's element j is input order[j]
	in := make([]uint64, n)
	for j, i := range order {
		in[j] = g.in[i]
	}
	src := pack(in, g.win)
	check := func(form string, dst []byte) {
		// row q, element i is input order[ways*i+q] = q*m+i: dst is in input order.
		g.expect(t, form, dst, identity(n))
	}
	split := func(dst []byte) [][]byte {
		parts := make([][]byte, ways)
		for q := range parts {
			parts[q] = dst[q*m*g.wo : (q+1)*m*g.wo]
		}
		return parts
	}
	if one != nil {
		dst := make([]byte, g.wo*n)
		one(split(dst), src, m)
		check(fmt.Sprintf("%s %d-way unpacking", k.Name, ways), dst)
	}
	for _, stream := range []bool{false, true} {
		dst := make([]byte, g.wo*n)
		batch(split(dst), src, m/2, Rows{N: 2, DstStride: g.wo * m / 2, SrcStride: ways * g.win * m / 2, Hints: Hints{Stream: stream}})
		k.Fence()
		check(fmt.Sprintf("%s %d-way unpacking rows (stream %v)", k.Name, ways, stream), dst)
	}
}

// xlaGoldens derives the goldens of the kernels from the recording.
type xlaGoldens struct {
	g     *xlagolden.Goldens
	index map[uint32]int // input bits → their first position
}

func loadXLA(t *testing.T) xlaGoldens {
	g := xlagolden.Load(t)
	x := xlaGoldens{g: g, index: make(map[uint32]int, len(g.Input))}
	for i := len(g.Input) - 1; i >= 0; i-- {
		x.index[g.Input[i]] = i
	}
	return x
}

// fromF32 is every recorded input converted to ty (wo bytes an element).
func (x xlaGoldens) fromF32(ty string, wo int) golden {
	g := golden{name: "f32→" + ty, win: 4, wo: wo}
	for i, f := range x.g.Input {
		g.in, g.want = append(g.in, uint64(f)), append(g.want, x.g.From[ty].At(i))
	}
	return g
}

// toF32 is every bit pattern of ty (win bytes) widened to f32.
func (x xlaGoldens) toF32(ty string, win int) golden {
	w := x.g.To[ty]
	g := golden{name: ty + "→f32", win: win, wo: 4, in: w.Pattern}
	for _, f := range w.F32 {
		g.want = append(g.want, uint64(f))
	}
	return g
}

// via is every bit pattern of from (win bytes), converted to to (wo bytes) as XLA
// converts from's f32 value (which input gives, its bits among the recorded inputs).
func (x xlaGoldens) via(t *testing.T, from string, win int, pats []uint64, input func(uint64) uint32, to string, wo int) golden {
	g := golden{name: from + "→" + to, win: win, wo: wo, in: pats}
	for _, p := range pats {
		i, ok := x.index[input(p)]
		if !ok {
			t.Fatalf("%s: the f32 0x%08x of %s 0x%x is not among the recorded inputs", g.name, input(p), from, p)
		}
		g.want = append(g.want, x.g.From[to].At(i))
	}
	return g
}

// all16 lists the 65536 16-bit patterns.
func all16() []uint64 {
	p := make([]uint64, 1<<16)
	for i := range p {
		p[i] = uint64(i)
	}
	return p
}

// f16Input is the recorded input that is f16 bits h's value: NumPy widened every f16
// for the recording and keeps a NaN's bits (signalling ones unquieted).
func f16Input(h uint64) uint32 {
	if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
		return uint32(h&0x8000)<<16 | 0x7f800000 | uint32(h&0x3ff)<<13
	}
	return F16BitsToF32(uint16(h))
}

func TestConversionKernelsMatchXLA(t *testing.T) {
	x := loadXLA(t)
	for _, k := range raceSets() {
		t.Run(k.Name, func(t *testing.T) {
			x.narrowing(t, k)
			x.widening(t, k)
			x.f8From16(t, k)
			x.f8To16(t, k)
		})
	}
}

func pairs(f func(dst, a, b []byte, n int)) func([]byte, [][]byte, int) {
	return func(dst []byte, r [][]byte, n int) { f(dst, r[0], r[1], n) }
}

func pairRows(f func(dst, a, b []byte, n int, r Rows)) func([]byte, [][]byte, int, Rows) {
	return func(dst []byte, r [][]byte, n int, rs Rows) { f(dst, r[0], r[1], n, rs) }
}

func quadRows(f func(dst, r0, r1, r2, r3 []byte, n int, r Rows)) func([]byte, [][]byte, int, Rows) {
	return func(dst []byte, r [][]byte, n int, rs Rows) { f(dst, r[0], r[1], r[2], r[3], n, rs) }
}

func unquadRows(f func(r0, r1, r2, r3, src []byte, n int, r Rows)) func([][]byte, []byte, int, Rows) {
	return func(r [][]byte, src []byte, n int, rs Rows) { f(r[0], r[1], r[2], r[3], src, n, rs) }
}

// narrowing: f32 → bf16 and f16, in runs and pairs; f32 → f8e4m3fn and f8e5m2, in
// runs and quads.
func (x xlaGoldens) narrowing(t *testing.T, k *Kernels) {
	for _, to := range []DType{BF16, F16} {
		g := x.fromF32(to.String(), 2)
		g.runs(t, k, k.one.conv[F32][to], k.Convert(F32, to))
		g.packs(t, k, 2, pairs(k.one.pack2[F32][to]), pairRows(k.Pack2(F32, to)))
	}
	for _, to := range []DType{F8E4M3FN, F8E5M2} {
		g := x.fromF32(to.String(), 1)
		g.runs(t, k, nil, k.Convert(F32, to))
		g.packs(t, k, 4, nil, quadRows(k.Pack4(F32, to)))
	}
}

// widening: bf16, f16, f8e4m3fn and f8e5m2 → f32.
func (x xlaGoldens) widening(t *testing.T, k *Kernels) {
	bf := x.toF32("bf16", 2)
	bf.runs(t, k, k.one.conv[BF16][F32], k.Convert(BF16, F32))
	x.toF32("f16", 2).runs(t, k, k.one.conv[F16][F32], k.Convert(F16, F32))
	bf.unpacks(t, k, 2, func(r [][]byte, src []byte, n int) { k.one.unpack2[BF16][F32](r[0], r[1], src, n) },
		func(r [][]byte, src []byte, n int, rs Rows) { k.Unpack2(BF16, F32)(r[0], r[1], src, n, rs) })
	for _, from := range []DType{F8E4M3FN, F8E5M2} {
		g := x.toF32(from.String(), 1)
		g.runs(t, k, nil, k.Convert(from, F32))
		g.unpacks(t, k, 4, nil, unquadRows(k.Unpack4(from, F32)))
	}
}

// f8From16: every bf16 and f16 pattern to f8e4m3fn and f8e5m2, in runs and quads.
func (x xlaGoldens) f8From16(t *testing.T, k *Kernels) {
	bfIn := func(p uint64) uint32 { return uint32(p) << 16 }
	for _, c := range []struct {
		from, to string
		input    func(uint64) uint32
		rows     func(dst, src []byte, n int, r Rows)
		quads    func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	}{
		{"bf16", "f8e4m3fn", bfIn, k.Convert(BF16, F8E4M3FN), k.Pack4(BF16, F8E4M3FN)},
		{"bf16", "f8e5m2", bfIn, k.Convert(BF16, F8E5M2), k.Pack4(BF16, F8E5M2)},
		{"f16", "f8e4m3fn", f16Input, k.Convert(F16, F8E4M3FN), k.Pack4(F16, F8E4M3FN)},
		{"f16", "f8e5m2", f16Input, k.Convert(F16, F8E5M2), k.Pack4(F16, F8E5M2)},
	} {
		g := x.via(t, c.from, 2, all16(), c.input, c.to, 1)
		g.runs(t, k, nil, c.rows)
		g.packs(t, k, 4, nil, quadRows(c.quads))
	}
}

// f8To16: every f8e4m3fn and f8e5m2 pattern to bf16 and f16, in runs and from quads:
// XLA's f32 of the pattern (recorded), then XLA's conversion of that f32 (recorded).
func (x xlaGoldens) f8To16(t *testing.T, k *Kernels) {
	for _, c := range []struct {
		from, to string
		rows     func(dst, src []byte, n int, r Rows)
		quads    func(r0, r1, r2, r3, src []byte, n int, r Rows)
	}{
		{"f8e4m3fn", "bf16", k.Convert(F8E4M3FN, BF16), k.Unpack4(F8E4M3FN, BF16)},
		{"f8e4m3fn", "f16", k.Convert(F8E4M3FN, F16), k.Unpack4(F8E4M3FN, F16)},
		{"f8e5m2", "bf16", k.Convert(F8E5M2, BF16), k.Unpack4(F8E5M2, BF16)},
		{"f8e5m2", "f16", k.Convert(F8E5M2, F16), k.Unpack4(F8E5M2, F16)},
	} {
		w := x.g.To[c.from]
		f32Of := map[uint64]uint32{}
		for i, p := range w.Pattern {
			f32Of[p] = w.F32[i]
		}
		g := x.via(t, c.from, 1, w.Pattern, func(p uint64) uint32 { return f32Of[p] }, c.to, 2)
		g.runs(t, k, nil, c.rows)
		g.unpacks(t, k, 4, nil, unquadRows(c.quads))
	}
}
