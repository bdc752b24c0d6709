package simd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// rowsCase is a batched kernel with its single-call form; operands in argument order.
type rowsCase struct {
	name  string
	sh    *shape
	f32In bool
	rows  func(k *Kernels, ops [][]byte, n int, r Rows)
	one   func(k *Kernels, ops [][]byte, n int)
}

var rowsCases = append([]rowsCase{
	{"Copy", &shCopy, false,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.CopyRows(o[0], o[1], n, r) },
		func(k *Kernels, o [][]byte, n int) { k.Copy(o[0][:n], o[1][:n]) }},
	convCase(F32, BF16, &shNarrow, true, nil),
	convCase(F32, F16, &shNarrow, true, nil),
	convCase(BF16, F32, &shWiden, false, nil),
	convCase(F16, F32, &shWiden, false, nil),
	pairsCase("Interleave16", Bits16, Bits16, true, &shPack16, false),
	pairsCase("Deinterleave16", Bits16, Bits16, false, &shUnpack16, false),
	pairsCase("F32ToBF16Interleave", F32, BF16, true, &shPackF32, true),
	pairsCase("F32ToF16Interleave", F32, F16, true, &shPackF32, true),
	pairsCase("BF16DeinterleaveToF32", BF16, F32, false, &shUnpackToF32, false),
	{"Interleave8x4", &shPack8x4, false,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Pack4(Bits8, Bits8)(o[0], o[1], o[2], o[3], o[4], n, r) },
		func(k *Kernels, o [][]byte, n int) { k.one.pack4[Bits8][Bits8](o[0], o[1], o[2], o[3], o[4], n) }},
	{"Deinterleave8x4", &shUnpack8x4, false,
		func(k *Kernels, o [][]byte, n int, r Rows) {
			k.Unpack4(Bits8, Bits8)(o[0], o[1], o[2], o[3], o[4], n, r)
		},
		func(k *Kernels, o [][]byte, n int) { k.one.unpack4[Bits8][Bits8](o[0], o[1], o[2], o[3], o[4], n) }},
	{"SplitNibbles", &shSplit4, false,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Nibbles.SplitRows(o[0], o[1], o[2], n, r) },
		func(_ *Kernels, o [][]byte, n int) {
			for i := range n {
				o[0][i], o[1][i] = o[2][i]&15, o[2][i]>>4
			}
		}},
	{"PackNibblePairs", &shPackPairs4, false,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Nibbles.PackPairsRows(o[0], o[1], n, r) },
		func(_ *Kernels, o [][]byte, n int) {
			for i := range n {
				o[0][i] = o[1][2*i]&15 | o[1][2*i+1]<<4
			}
		}},
	{"UnpackNibblePairs", &shUnpackPairs4, false,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Nibbles.UnpackPairsRows(o[0], o[1], n, r) },
		func(_ *Kernels, o [][]byte, n int) {
			for i := range n {
				o[0][2*i], o[0][2*i+1] = o[1][i]&15, o[1][i]>>4
			}
		}},
	{"JoinNibbles", &shJoin4, false,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Nibbles.JoinRows(o[0], o[1], o[2], n, r) },
		func(_ *Kernels, o [][]byte, n int) {
			for i := range n {
				o[0][i] = o[1][i]&15 | o[2][i]<<4
			}
		}},
}, f8RowsCases()...)

// f8RowsCases are the f8 kernels of each format, to and from f32 and the 16-bit
// types, in runs and in quads. They have no single-call form: the reference is the
// per-element code.
func f8RowsCases() []rowsCase {
	halves := []struct {
		dt     DType
		widen  func(uint16) uint32
		narrow func(uint32) uint16
	}{{BF16, BF16BitsToF32, F32ToBF16Bits}, {F16, F16BitsToF32, F32ToF16Bits}}
	var cs []rowsCase
	for _, f := range []struct {
		dt    DType
		enc   f8Format
		widen func(uint8) uint32
	}{{F8E4M3FN, e4m3fn, F8E4M3FNBitsToF32}, {F8E5M2, e5m2, F8E5M2BitsToF32}} {
		cs = append(cs,
			convCase(F32, f.dt, &shToF8, true, func(o [][]byte, n int) { refF32ToF8(f.enc, o[0], o[1], n) }),
			convCase(f.dt, F32, &shFromF8, false, func(o [][]byte, n int) { refF8ToF32(f.widen, o[0], o[1], n) }),
			quadsCase(F32, f.dt, &shPackF8x4, true, func(o [][]byte, n int) { refF32ToF8Quads(f.enc, o, n) }),
			quadsCase(f.dt, F32, &shUnpackF8x4, false, func(o [][]byte, n int) { refF8Quads(f.widen, o, n) }))
		for _, h := range halves {
			cs = append(cs,
				convCase(f.dt, h.dt, &shFromF8To16, false, func(o [][]byte, n int) { refF8To16(f.widen, h.narrow, o[0], o[1], n) }),
				convCase(h.dt, f.dt, &shFrom16ToF8, false, func(o [][]byte, n int) { ref16ToF8(h.widen, f.enc, o[0], o[1], n) }),
				quadsCase(h.dt, f.dt, &shPack16F8x4, false, func(o [][]byte, n int) { ref16ToF8Quads(h.widen, f.enc, o, n) }),
				quadsCase(f.dt, h.dt, &shUnpackF8x4To16, false, func(o [][]byte, n int) { refF8QuadsTo16(f.widen, h.narrow, o, n) }))
		}
	}
	return cs
}

// kernelName is the type as the kernels' names spell it (F32, BF16, F8E4M3FN).
func kernelName(t DType) string { return strings.ToUpper(t.String()) }

// convCase is the batched Convert(from, to) against ref, or, where ref is nil, against
// the set's single-call conversion.
func convCase(from, to DType, sh *shape, f32In bool, ref func(o [][]byte, n int)) rowsCase {
	one := func(k *Kernels, o [][]byte, n int) { k.one.conv[from][to](o[0], o[1], n) }
	if ref != nil {
		one = func(_ *Kernels, o [][]byte, n int) { ref(o, n) }
	}
	return rowsCase{kernelName(from) + "To" + kernelName(to), sh, f32In,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Convert(from, to)(o[0], o[1], n, r) }, one}
}

// pairsCase is the batched Pack2(from, to), or Unpack2(from, to) where not pack,
// against the set's single-call form.
func pairsCase(name string, from, to DType, pack bool, sh *shape, f32In bool) rowsCase {
	if !pack {
		return rowsCase{name, sh, f32In,
			func(k *Kernels, o [][]byte, n int, r Rows) { k.Unpack2(from, to)(o[0], o[1], o[2], n, r) },
			func(k *Kernels, o [][]byte, n int) { k.one.unpack2[from][to](o[0], o[1], o[2], n) }}
	}
	return rowsCase{name, sh, f32In,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Pack2(from, to)(o[0], o[1], o[2], n, r) },
		func(k *Kernels, o [][]byte, n int) { k.one.pack2[from][to](o[0], o[1], o[2], n) }}
}

// quadsCase is the batched Pack4(from, to) (into quads, when to is the narrower type)
// or Unpack4(from, to) against ref.
func quadsCase(from, to DType, sh *shape, f32In bool, ref func(o [][]byte, n int)) rowsCase {
	c := rowsCase{kernelName(from) + "To" + kernelName(to) + "Interleave8x4", sh, f32In,
		func(k *Kernels, o [][]byte, n int, r Rows) { k.Pack4(from, to)(o[0], o[1], o[2], o[3], o[4], n, r) },
		func(_ *Kernels, o [][]byte, n int) { ref(o, n) }}
	if from.Bytes() < to.Bytes() {
		c.name = kernelName(from) + "Deinterleave8x4To" + kernelName(to)
		c.rows = func(k *Kernels, o [][]byte, n int, r Rows) { k.Unpack4(from, to)(o[0], o[1], o[2], o[3], o[4], n, r) }
	}
	return c
}

// refF32ToF8, refF8ToF32 and refF32ToF8Quads are the f8 kernels element by element,
// from the scalar definitions (which TestF8Scalar checks against package buffer).
func refF32ToF8(f f8Format, dst, src []byte, n int) {
	for i := range n {
		dst[i] = f.encode(le.Uint32(src[4*i:]))
	}
}

func refF8ToF32(widen func(uint8) uint32, dst, src []byte, n int) {
	for i := range n {
		le.PutUint32(dst[4*i:], widen(src[i]))
	}
}

func refF8To16(widen func(uint8) uint32, narrow func(uint32) uint16, dst, src []byte, n int) {
	for i := range n {
		le.PutUint16(dst[2*i:], narrow(widen(src[i])))
	}
}

func ref16ToF8(widen func(uint16) uint32, f f8Format, dst, src []byte, n int) {
	for i := range n {
		dst[i] = f.encode(widen(le.Uint16(src[2*i:])))
	}
}

func ref16ToF8Quads(widen func(uint16) uint32, f f8Format, o [][]byte, n int) {
	for i := range n {
		for k := range 4 {
			o[0][4*i+k] = f.encode(widen(le.Uint16(o[1+k][2*i:])))
		}
	}
}

func refF8QuadsTo16(widen func(uint8) uint32, narrow func(uint32) uint16, o [][]byte, n int) {
	for i := range n {
		for k := range 4 {
			le.PutUint16(o[k][2*i:], narrow(widen(o[4][4*i+k])))
		}
	}
}

func refF8Quads(widen func(uint8) uint32, o [][]byte, n int) {
	for i := range n {
		for k := range 4 {
			le.PutUint32(o[k][4*i:], widen(o[4][4*i+k]))
		}
	}
}

func refF32ToF8Quads(f f8Format, o [][]byte, n int) {
	for i := range n {
		for k := range 4 {
			o[0][4*i+k] = f.encode(le.Uint32(o[1+k][4*i:]))
		}
	}
}

func (c *rowsCase) operands() int {
	k := 0
	for k < len(c.sh.w) && c.sh.w[k] > 0 {
		k++
	}
	return k
}

// TestRows checks every batched kernel of every implementation against the
// generic single-call kernel run once per row: random row counts, strides
// with gaps (whose bytes must stay as they were), a shared source row
// (stride 0), unaligned starts, non-temporal stores (Stream, with
// destination starts and strides aligned or not), and asking ahead (Ahead).
func TestRows(t *testing.T) {
	withNT(t, func(t *testing.T) {
		for _, c := range rowsCases {
			t.Run(c.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(5, 6))
				for _, k := range Available() {
					for _, n := range testLengths[:30] {
						rows := Rows{N: r.IntN(6), Hints: Hints{Stream: r.IntN(2) == 0, Ahead: []int32{0, 0, 4096}[r.IntN(3)]}}
						dgap, sgap := r.IntN(70), r.IntN(70)
						checkRowsCase(t, c, k, r, n, rows, dgap, sgap, r.IntN(2) == 0)
					}
				}
			})
		}
	})
}

// TestCopyRowsLong checks CopyRows on rows of halvesFrom bytes and more, which the
// AVX-512 set streams in 32-byte vectors (copyHalves), past TestRows' lengths.
func TestCopyRowsLong(t *testing.T) {
	c := rowsCases[0] // Copy
	r := rand.New(rand.NewPCG(7, 8))
	for _, k := range Available() {
		for _, n := range []int{halvesFrom - 1, halvesFrom, halvesFrom + 1, halvesFrom + 255, 2*halvesFrom + 37} {
			for range 4 {
				rows := Rows{N: 1 + r.IntN(5), Hints: Hints{Stream: r.IntN(4) != 0}}
				checkRowsCase(t, c, k, r, n, rows, r.IntN(70), r.IntN(70), r.IntN(4) == 0)
			}
		}
	}
}

// TestCopyRowsStringCopy checks CopyRows on rows long enough to stream in every set
// and its twin of the other string copy choice (WithStringCopy): REP MOVSB and CopyNT
// give the same bytes, aligned or not; and that the twins pair up as documented.
func TestCopyRowsStringCopy(t *testing.T) {
	c := rowsCases[0] // Copy
	r := rand.New(rand.NewPCG(9, 10))
	if g := Generic(); g.WithStringCopy(true) != g || g.WithStringCopy(false) != g || g.StringCopy() {
		t.Errorf("generic set: WithStringCopy gives another set, or StringCopy %v", g.StringCopy())
	}
	for _, k := range Available()[1:] {
		on, off := k.WithStringCopy(true), k.WithStringCopy(false)
		if !on.StringCopy() || off.StringCopy() || on == off || on.Name != k.Name || off.Name != k.Name {
			t.Fatalf("%s: WithStringCopy(true) %p (%v), (false) %p (%v)", k.Name, on, on.StringCopy(), off, off.StringCopy())
		}
		if k.WithStringCopy(k.StringCopy()) != k || on.WithStringCopy(false) != off || off.WithStringCopy(true) != on {
			t.Errorf("%s: the twins do not pair up", k.Name)
		}
		if k.StringCopy() != useStringCopy {
			t.Errorf("%s: registered with StringCopy %v, the CPU rule says %v", k.Name, k.StringCopy(), useStringCopy)
		}
		for _, ks := range []*Kernels{on, off} {
			t.Run(fmt.Sprintf("%s/stringCopy=%v", k.Name, ks.StringCopy()), func(t *testing.T) {
				for _, n := range []int{ntThreshold, ntThreshold + 37} {
					for i := range 3 {
						rows := Rows{N: 1 + i, Hints: Hints{Stream: true}}
						checkRowsCase(t, c, ks, r, n, rows, r.IntN(70), r.IntN(70), i == 2)
					}
				}
			})
		}
	}
}

func checkRowsCase(t *testing.T, c rowsCase, k *Kernels, r *rand.Rand, n int, rows Rows, dgap, sgap int, sharedSrc bool) {
	t.Helper()
	nops := c.operands()
	// Strides: the widest destination (resp. source) row plus a gap.
	for i := range nops {
		row := c.sh.w[i] * n
		if c.sh.dst[i] {
			rows.DstStride = max(rows.DstStride, row+dgap)
		} else if !sharedSrc {
			rows.SrcStride = max(rows.SrcStride, row+sgap)
		}
	}
	// Destination strides that keep rows on 64-byte boundaries, and starts that
	// are on one (aligned) or not (the non-temporal path must not be taken).
	aligned := rows.Stream && r.IntN(4) != 0
	if rows.Stream && r.IntN(4) != 0 {
		rows.DstStride = (rows.DstStride + 63) &^ 63
	}
	size := func(i int) int {
		if rows.N == 0 {
			return r.IntN(8)
		}
		st := rows.SrcStride
		if c.sh.dst[i] {
			st = rows.DstStride
		}
		return (rows.N-1)*st + c.sh.w[i]*n
	}
	off := func(i int) int {
		if aligned && c.sh.dst[i] {
			return 0
		}
		return (i*13 + n) % 64
	}
	checkRows(t, c, k, r, n, rows, size, off, fmt.Sprintf("%sRows/%s n=%d %+v", c.name, k.Name, n, rows))
}

// checkRows runs c's batched kernel of k on fresh operands, operand i size(i) bytes
// long and off(i) bytes past a 64-byte boundary between guard bytes, and compares it
// with the single-call generic kernel run row by row.
func checkRows(t *testing.T, c rowsCase, k *Kernels, r *rand.Rand, n int, rows Rows, size, off func(i int) int, what string) {
	t.Helper()
	nops := c.operands()
	want := make([][]byte, nops)
	got := make([][]byte, nops)
	guards := make([]*guarded, nops)
	for i := range nops {
		sz := size(i)
		data := randBytes(r, sz)
		if c.f32In && !c.sh.dst[i] {
			data = randF32(r, sz/4+1)[:sz]
		}
		guards[i] = newGuarded(len(data), off(i))
		got[i] = guards[i].b()
		copy(got[i], data)
		want[i] = bytes.Clone(data)
	}
	for j := range rows.N {
		ops := make([][]byte, nops)
		for i := range nops {
			st := rows.SrcStride
			if c.sh.dst[i] {
				st = rows.DstStride
			}
			ops[i] = want[i][j*st:]
		}
		c.one(Generic(), ops, n)
	}
	c.rows(k, got, n, rows)
	k.Fence()
	for i := range nops {
		guards[i].checkGuards(t, what)
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: operand %d differs from row-by-row generic", what, i)
		}
	}
}

func TestRowsPanics(t *testing.T) {
	for _, k := range Available() {
		b := make([]byte, 1000)
		for _, tc := range []struct {
			name string
			f    func()
		}{
			{"short dst", func() { k.Pack2(Bits16, Bits16)(b[:4*10*3-1], b, b, 10, Rows{N: 3, DstStride: 40}) }},
			{"short src", func() { k.Convert(F32, BF16)(b, b[:99], 10, Rows{N: 3, SrcStride: 30}) }},
			{"negative stride", func() { k.Unpack4(Bits8, Bits8)(b, b, b, b, b, 1, Rows{N: 2, DstStride: -1}) }},
			{"negative rows", func() { k.Convert(BF16, F32)(b, b, 1, Rows{N: -1}) }},
			{"huge stride", func() { k.Pack2(Bits16, Bits16)(b, b, b, 1, Rows{N: 3, DstStride: hugeStride}) }},
			// 4*n wraps to 64 bytes: a check on the row's bytes alone would pass.
			{"huge n", func() { k.Pack2(F32, BF16)(b[:64], b[:64], b[:64], wraps4, Rows{N: 1}) }},
			{"huge n unpack", func() { k.Unpack2(BF16, F32)(b[:64], b[:64], b[:64], wraps4, Rows{N: 1}) }},
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s %s did not panic", k.Name, tc.name)
					}
				}()
				tc.f()
			}()
		}
	}
}

// TestRowsFitsRegisters: Rows stays within what the compiler keeps in registers (at
// most four fields a struct and four words in all, on 64-bit machines); a larger Rows
// lives in memory on every call, which made relayout's bf16 unpacking, many short
// batches, about a quarter slower (bench/design-notes.md).
func TestRowsFitsRegisters(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the bound is for 64-bit machines")
	}
	var check func(rt reflect.Type)
	check = func(rt reflect.Type) {
		if rt.Kind() != reflect.Struct {
			return
		}
		if rt.NumField() > 4 {
			t.Errorf("%s has %d fields, more than 4", rt, rt.NumField())
		}
		for i := range rt.NumField() {
			check(rt.Field(i).Type)
		}
	}
	check(reflect.TypeOf(Rows{}))
	if n := unsafe.Sizeof(Rows{}); n > 32 {
		t.Errorf("Rows is %d bytes, more than 32", n)
	}
}
