package buffer

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
)

func TestNewAlignedZeroed(t *testing.T) {
	for _, s := range []string{"f32[3,5]{1,0:T(2,2)}", "bf16[17,130]{1,0:T(8,128)(2,1)}", "u8[1]", "f32[]", "s4[9]{0:E(4)}", "f32[0,4]"} {
		sh := layout.MustParse(s)
		for range 8 { // several allocations: each must be aligned
			b, err := New(sh)
			if err != nil {
				t.Fatalf("New(%s): %v", s, err)
			}
			ix, _ := layout.Compile(sh)
			if int64(len(b.Data)) != ix.FootprintBytes() {
				t.Fatalf("New(%s): %d bytes, footprint %d", s, len(b.Data), ix.FootprintBytes())
			}
			if len(b.Data) > 0 && uintptr(unsafe.Pointer(&b.Data[0]))%Alignment != 0 {
				t.Fatalf("New(%s): data not %d-byte aligned", s, Alignment)
			}
			for _, x := range b.Data {
				if x != 0 {
					t.Fatalf("New(%s): not zeroed", s)
				}
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, s := range []string{"(f32[2], f32[3])", "f32[?]", "token[]", "f32[4]{0:E(16)}", "s4[4]{0:E(2)}", "u8[4]{0:E(12)}"} {
		sh, err := layout.Parse(s)
		if err != nil {
			continue // rejected earlier: fine
		}
		if _, err := New(sh); !errors.Is(err, ErrShape) {
			t.Errorf("New(%s) = %v, want ErrShape", s, err)
		}
	}
}

// NewCompiled makes New's buffer on the caller's indexer.
func TestNewCompiled(t *testing.T) {
	for _, s := range []string{"f32[3,5]{1,0:T(2,2)}", "bf16[17,130]{1,0:T(8,128)(2,1)}", "s4[9]{0:E(4)}", "f32[0,4]", "f32[2,3]"} {
		ix, err := layout.Compile(layout.MustParse(s))
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewCompiled(ix)
		if err != nil {
			t.Fatalf("NewCompiled(%s): %v", s, err)
		}
		want := MustNew(layout.MustParse(s))
		if b.Indexer() != ix || b.Shape.String() != want.Shape.String() || len(b.Data) != len(want.Data) || b.ElementBits() != want.ElementBits() {
			t.Errorf("NewCompiled(%s): %s, %d bytes, %d bits; want the indexer's %s, %d bytes, %d bits", s, b.Shape, len(b.Data), b.ElementBits(), want.Shape, len(want.Data), want.ElementBits())
		}
		if len(b.Data) > 0 && uintptr(unsafe.Pointer(&b.Data[0]))%Alignment != 0 {
			t.Errorf("NewCompiled(%s): data not %d-byte aligned", s, Alignment)
		}
	}
}

func TestWrap(t *testing.T) {
	sh := layout.MustParse("f32[3,5]{1,0:T(2,2)}") // footprint 4×6 = 24 elements = 96 bytes
	if _, err := Wrap(sh, make([]byte, 96)); err != nil {
		t.Fatal(err)
	}
	_, err := Wrap(sh, make([]byte, 60))
	if !errors.Is(err, ErrSize) || !strings.Contains(err.Error(), "96") || !strings.Contains(err.Error(), "60") {
		t.Fatalf("Wrap with 60 bytes: %v (want ErrSize naming 96 and 60)", err)
	}
}

// TestTypedAccessors stores through the typed setter and reads through the typed
// getter, Bits, At and the bytes at the indexer's offset.
func TestTypedAccessors(t *testing.T) {
	layouts := []string{"%s[3,5]", "%s[3,5]{0,1}", "%s[3,5]{1,0:T(2,2)}", "%s[3,5]{0,1:T(2,4)(2,1)}"}
	for _, lt := range layouts {
		for _, dt := range []string{"f32", "f64", "bf16", "f16", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "pred"} {
			s := strings.Replace(lt, "%s", dt, 1)
			b := MustNew(layout.MustParse(s))
			width := b.ElementBits() / 8
			idx := make([]int64, 2)
			n := int64(0)
			for {
				n++
				v := float64(n) - 7
				off := b.ix.Offset(idx) * int64(width)
				raw := b.Data[off : off+int64(width)]
				switch x := float32(v) + 0.00390625; b.DType() { // x: bf16 rounds away its small part
				case layout.F32:
					typed(t, s, idx, raw, b.SetF32, b.F32, float32(v)/4, float32(v)/4, uint64(math.Float32bits(float32(v)/4)))
				case layout.F64:
					typed(t, s, idx, raw, b.SetF64, b.F64, v/3, v/3, math.Float64bits(v/3))
				case layout.BF16:
					typed(t, s, idx, raw, b.SetBF16, b.BF16, x, BF16ToF32(F32ToBF16(x)), uint64(F32ToBF16(x)))
				case layout.F16:
					typed(t, s, idx, raw, b.SetF16, b.F16, float32(v)/8, float32(v)/8, uint64(F32ToF16(float32(v)/8)))
				case layout.S8:
					typed(t, s, idx, raw, b.SetS8, b.S8, int8(v), int8(v), uint64(uint8(int8(v))))
				case layout.U8:
					typed(t, s, idx, raw, b.SetU8, b.U8, uint8(n), uint8(n), uint64(uint8(n)))
				case layout.S16:
					typed(t, s, idx, raw, b.SetS16, b.S16, int16(v)*1000, int16(v)*1000, uint64(uint16(int16(v)*1000)))
				case layout.U16:
					typed(t, s, idx, raw, b.SetU16, b.U16, uint16(n)*1000, uint16(n)*1000, uint64(uint16(n)*1000))
				case layout.S32:
					typed(t, s, idx, raw, b.SetS32, b.S32, int32(v)*100000, int32(v)*100000, uint64(uint32(int32(v)*100000)))
				case layout.U32:
					typed(t, s, idx, raw, b.SetU32, b.U32, uint32(n)<<28, uint32(n)<<28, uint64(uint32(n)<<28))
				case layout.S64:
					typed(t, s, idx, raw, b.SetS64, b.S64, int64(v)<<40, int64(v)<<40, uint64(int64(v)<<40))
				case layout.U64:
					typed(t, s, idx, raw, b.SetU64, b.U64, uint64(n)<<60, uint64(n)<<60, uint64(n)<<60)
				case layout.Pred:
					typed(t, s, idx, raw, b.SetPred, b.Pred, n%3 == 0, n%3 == 0, map[bool]uint64{true: 1}[n%3 == 0])
				}
				if !layout.NextIndex(idx, b.Dims()) {
					break
				}
			}
			// Generic access agrees with the typed one, and Set/At round-trip.
			idx = []int64{2, 4}
			got := b.At(idx)
			if bits := b.Bits(idx); ConvertElement(layout.F64, b.DType(), bits) != math.Float64bits(got) {
				t.Fatalf("%s: At %v and Bits %#x disagree", s, got, bits)
			}
			b.Set(idx, 1)
			if b.At(idx) != 1 {
				t.Fatalf("%s: Set(1) then At = %v", s, b.At(idx))
			}
		}
	}
}

// typed stores v at idx through set, then reads want back through get, and bits as
// the little-endian value of raw, the element's bytes.
func typed[T comparable](t *testing.T, what string, idx []int64, raw []byte, set func([]int64, T), get func([]int64) T, v, want T, bits uint64) {
	t.Helper()
	set(idx, v)
	var le uint64
	for i := len(raw) - 1; i >= 0; i-- {
		le = le<<8 | uint64(raw[i])
	}
	if got := get(idx); got != want || le != bits {
		t.Fatalf("%s %v: reads %v, bytes %#x; want %v, %#x", what, idx, got, le, want, bits)
	}
}

func TestAccessorPanics(t *testing.T) {
	b := MustNew(layout.MustParse("f32[3,5]"))
	testenv.MustPanic(t, "row out of range", func() { b.F32([]int64{3, 0}) })
	testenv.MustPanic(t, "negative", func() { b.F32([]int64{-1, 0}) })
	testenv.MustPanic(t, "short index", func() { b.At([]int64{1}) })
	testenv.MustPanic(t, "wrong type", func() { b.BF16([]int64{0, 0}) })
	testenv.MustPanic(t, "Set on c64", func() {
		MustNew(layout.MustParse("c64[2]")).Set([]int64{0}, 1)
	})
}

func TestNoAllocs(t *testing.T) {
	b := MustNew(layout.MustParse("bf16[64,256]{1,0:T(8,128)(2,1)}"))
	p := MustNew(layout.MustParse("s4[64,256]{1,0:T(64,128)(8,1)E(4)}"))
	idx := []int64{13, 200}
	n := testing.AllocsPerRun(100, func() {
		b.SetBF16(idx, 1.5)
		_ = b.BF16(idx)
		_ = b.Bits(idx)
		b.Set(idx, 2)
		_ = b.At(idx)
		p.SetBits(idx, 5)
		_ = p.At(idx)
	})
	if n != 0 {
		t.Fatalf("%v allocations per access", n)
	}
}

// TestSubBytePacking checks the bit positions of packed elements: element j of a byte
// at bit E*j, least-significant first, in tiled linear order.
func TestSubBytePacking(t *testing.T) {
	// s4 with E(4): 5 elements in 3 bytes.
	b := MustNew(layout.MustParse("s4[5]{0:E(4)}"))
	for i, v := range []float64{-8, 7, -1, 3, -3} {
		b.Set([]int64{int64(i)}, v)
	}
	if want := []byte{0x78, 0x3F, 0x0D}; string(b.Data) != string(want) {
		t.Fatalf("s4 E(4) bytes % x, want % x", b.Data, want)
	}
	for i, v := range []float64{-8, 7, -1, 3, -3} {
		if got := b.At([]int64{int64(i)}); got != v {
			t.Fatalf("s4[%d] = %v, want %v", i, got, v)
		}
	}
	if got := b.Bits([]int64{2}); got != 0xF {
		t.Fatalf("Bits of s4 -1 = %#x, want 0xf", got)
	}
	// u2 with E(2): 4 per byte.
	u2 := MustNew(layout.MustParse("u2[6]{0:E(2)}"))
	for i, v := range []uint64{1, 2, 3, 0, 3, 1} {
		u2.SetBits([]int64{int64(i)}, v)
	}
	if want := []byte{0b00_11_10_01, 0b0111}; string(u2.Data) != string(want) {
		t.Fatalf("u2 bytes %08b, want %08b", u2.Data, want)
	}
	// pred and u1 with E(1): 8 per byte.
	for _, s := range []string{"pred[10]{0:E(1)}", "u1[10]{0:E(1)}", "s1[10]{0:E(1)}"} {
		p := MustNew(layout.MustParse(s))
		for i := range 10 {
			if i%3 == 0 {
				p.SetBits([]int64{int64(i)}, 1)
			}
		}
		if want := []byte{0b01001001, 0b10}; string(p.Data) != string(want) {
			t.Fatalf("%s bytes %08b, want %08b", s, p.Data, want)
		}
	}
	// s1: the set bit is -1.
	s1 := MustNew(layout.MustParse("s1[2]{0:E(1)}"))
	s1.Set([]int64{1}, -1)
	if s1.At([]int64{1}) != -1 || s1.Data[0] != 0b10 {
		t.Fatalf("s1: %v % x", s1.At([]int64{1}), s1.Data)
	}
	// s4 without E: one byte each, sign-extended.
	s4 := MustNew(layout.MustParse("s4[2]"))
	s4.Set([]int64{0}, -3)
	s4.Set([]int64{1}, 5)
	if s4.Data[0] != 0xFD || s4.Data[1] != 5 || s4.At([]int64{0}) != -3 || s4.Bits([]int64{0}) != 0xD {
		t.Fatalf("s4 unpacked: % x", s4.Data)
	}
	// f4e2m1fn, packed and not.
	for _, s := range []string{"f4e2m1fn[3]{0:E(4)}", "f4e2m1fn[3]"} {
		f := MustNew(layout.MustParse(s))
		for i, v := range []float64{1.5, -6, 0.5} {
			f.Set([]int64{int64(i)}, v)
		}
		for i, v := range []float64{1.5, -6, 0.5} {
			if got := f.At([]int64{int64(i)}); got != v {
				t.Fatalf("%s[%d] = %v, want %v", s, i, got, v)
			}
		}
		if s == "f4e2m1fn[3]{0:E(4)}" && (f.Data[0] != 0xF3 || f.Data[1] != 0x01) {
			t.Fatalf("%s bytes % x", s, f.Data)
		}
	}
	// TPU s4 tiling: T(64,128)(8,1)E(4): 8 consecutive rows of a column share 32 bits.
	tp := MustNew(layout.MustParse("s4[64,128]{1,0:T(64,128)(8,1)E(4)}"))
	for r := range int64(8) {
		tp.Set([]int64{r, 1}, float64(r-4))
	}
	w := binary.LittleEndian.Uint32(tp.Data[4:8])
	for r := range 8 {
		if got := signExtend(uint64(w>>(4*r))&0xF, 4); got != int64(r-4) {
			t.Fatalf("tpu s4: nibble %d of word %#08x = %d, want %d", r, w, got, r-4)
		}
	}
}

// TestPackedAgainstIndexer writes every element of packed buffers and checks each
// element's bits at the indexer's bit offset, and that neighbours are untouched.
func TestPackedAgainstIndexer(t *testing.T) {
	for _, s := range []string{"u4[7,9]{1,0:T(2,4)E(4)}", "u2[5,11]{0,1:T(4,2)E(2)}", "pred[13]{0:T(8)E(1)}", "s4[3,3,5]{2,0,1:T(2,2)E(4)}"} {
		b := MustNew(layout.MustParse(s))
		idx := make([]int64, b.Rank())
		k := uint64(0)
		for {
			b.SetBits(idx, k)
			k++
			if !layout.NextIndex(idx, b.Dims()) {
				break
			}
		}
		e := int64(b.ElementBits())
		clear(idx)
		k = 0
		for {
			bit := b.ix.BitOffset(idx)
			got := uint64(b.Data[bit/8]>>(bit%8)) & (1<<e - 1)
			if want := k & (1<<e - 1); got != want || b.Bits(idx) != want {
				t.Fatalf("%s %v: bits %#x (Bits %#x), want %#x", s, idx, got, b.Bits(idx), want)
			}
			k++
			if !layout.NextIndex(idx, b.Dims()) {
				break
			}
		}
	}
}

func TestCloneAndDense(t *testing.T) {
	b := MustNew(layout.MustParse("f32[2,3]"))
	b.SetF32([]int64{1, 2}, 5)
	c := b.Clone()
	c.SetF32([]int64{1, 2}, 6)
	if b.F32([]int64{1, 2}) != 5 || c.F32([]int64{1, 2}) != 6 {
		t.Fatal("Clone shares data")
	}
	if !b.IsRowMajorDense() || MustNew(layout.MustParse("f32[2,3]{0,1}")).IsRowMajorDense() ||
		MustNew(layout.MustParse("f32[2,3]{1,0:T(2,2)}")).IsRowMajorDense() {
		t.Fatal("IsRowMajorDense")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// A stored pred byte is true when any of its bits is set (NumPy's bool view of a byte,
// and what relayout's pred conversions take), not only when bit 0 is.
func TestPredNonzeroByte(t *testing.T) {
	b := MustNew(layout.MustParse("pred[4]{0}"))
	copy(b.Data, []byte{0x00, 0x01, 0x02, 0xff})
	for i, want := range []bool{false, true, true, true} {
		if got := b.Pred([]int64{int64(i)}); got != want {
			t.Errorf("byte %#x: Pred = %v, want %v", b.Data[i], got, want)
		}
	}
}

// The size limits of one slice, for a 64-bit int and, on any host, for a 32-bit one: CI
// cannot always execute 386 test binaries, and these limits are what differs there.
func TestSliceLimits(t *testing.T) {
	cases := []struct {
		n, maxInt     int64
		tooBig, mapOK bool
	}{
		{-1, math.MaxInt32, true, false},
		{0, math.MaxInt32, false, false},
		{1 << 20, math.MaxInt32, false, true},
		{math.MaxInt32 - Alignment, math.MaxInt32, false, true},
		{math.MaxInt32 - Alignment + 1, math.MaxInt32, true, true},
		{math.MaxInt32, math.MaxInt32, true, true},
		{math.MaxInt32 + 1, math.MaxInt32, true, false},
		{1 << 32, math.MaxInt32, true, false},
		{1 << 32, math.MaxInt64, false, true},
		{maxAlloc, math.MaxInt64, false, true},
		{maxAlloc + 1, math.MaxInt64, true, true},
		{math.MaxInt64, math.MaxInt64, true, true},
	}
	for _, c := range cases {
		if got := tooBigFor(c.n, c.maxInt); got != c.tooBig {
			t.Errorf("tooBigFor(%d, %d) = %v, want %v", c.n, c.maxInt, got, c.tooBig)
		}
		if got := mappable(c.n, c.maxInt); got != c.mapOK {
			t.Errorf("mappable(%d, %d) = %v, want %v", c.n, c.maxInt, got, c.mapOK)
		}
	}
	if tooBig(1<<20) || !tooBig(-1) {
		t.Error("tooBig disagrees with tooBigFor at this platform's int")
	}
}
