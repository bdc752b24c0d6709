package tpu

import (
	"errors"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// The checkable facts of tpu-model.md §5, one test each, on the 8 × 128 target.

func vl(bits int, t0, t1 int64) VregLayout {
	return VregLayout{Bits: bits, Tiling: [2]int64{t0, t1}, Target: DefaultTarget}
}

func mustCount(t *testing.T, v VregLayout, dims ...int64) int64 {
	t.Helper()
	n, err := v.VregCount(dims)
	if err != nil {
		t.Fatalf("%s.VregCount(%v): %v", v, dims, err)
	}
	return n
}

func wantPlace(t *testing.T, v VregLayout, idx []int64, vreg []int64, sublane, lane, slot int) Placement {
	t.Helper()
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	got := v.Place(idx)
	if !slices.Equal(got.Vreg, vreg) || got.Sublane != sublane || got.Lane != lane || got.Slot != slot {
		t.Errorf("%s.Place(%v) = %v, want vreg %v sublane %d lane %d slot %d", v, idx, got, vreg, sublane, lane, slot)
	}
	return got
}

func mem(t *testing.T, s string) *MemTiling {
	t.Helper()
	m, err := NewMemTiling(DefaultTarget, layout.MustParse(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantWord(t *testing.T, m *MemTiling, idx []int64, word int64, slot int) MemLoc {
	t.Helper()
	loc := m.Locate(idx)
	if loc.Word != word || loc.Slot != slot {
		t.Errorf("%s: %v at word %d.%d, want %d.%d", m.Shape(), idx, loc.Word, loc.Slot, word, slot)
	}
	return loc
}

func TestFact01VregCountF32(t *testing.T) {
	if n := mustCount(t, vl(32, 8, 128), 12, 320); n != 6 {
		t.Errorf("f32[12,320] in (8,128): %d vregs, want 6", n)
	}
}

func TestFact02F32Place(t *testing.T) {
	wantPlace(t, vl(32, 8, 128), []int64{3, 5}, []int64{0, 0}, 3, 5, 0)
}

func TestFact03BF16NativePlace(t *testing.T) {
	native := NativeLayout(DefaultTarget, 16)
	if native.Tiling != [2]int64{16, 128} {
		t.Fatalf("bf16 native tiling %v", native.Tiling)
	}
	wantPlace(t, native, []int64{5, 7}, []int64{0, 0}, 2, 7, 1)
}

func TestFact04RowPairsShareWords(t *testing.T) {
	native := NativeLayout(DefaultTarget, 16)
	a := wantPlace(t, native, []int64{4, 7}, []int64{0, 0}, 2, 7, 0)
	b := wantPlace(t, native, []int64{5, 7}, []int64{0, 0}, 2, 7, 1)
	c := wantPlace(t, native, []int64{12, 7}, []int64{0, 0}, 6, 7, 0)
	if a.Word(DefaultTarget) != b.Word(DefaultTarget) {
		t.Error("(4,7) and (5,7) are not in the same word")
	}
	if a.Word(DefaultTarget) == c.Word(DefaultTarget) {
		t.Error("(4,7) and (12,7) share a word")
	}
}

func TestFact05BF16Rows16(t *testing.T) {
	if n := mustCount(t, vl(16, 16, 128), 16, 128); n != 1 {
		t.Errorf("bf16[16,128] in (16,128): %d vregs, want 1", n)
	}
	v := vl(16, 8, 128)
	if n := mustCount(t, v, 16, 128); n != 2 {
		t.Errorf("bf16[16,128] in (8,128): %d vregs, want 2", n)
	}
	if s := v.VregSlice(); s != [2]int64{8, 256} {
		t.Errorf("bf16 (8,128) vreg slice %v, want (8,256)", s)
	}
	// Half the lanes are padding: columns 128..255 of the slice hold nothing.
	used := 0
	for s := 0; s < 8; s++ {
		for l := 0; l < 128; l++ {
			for k := 0; k < 2; k++ {
				if _, ok := v.Element([]int64{16, 128}, []int64{0, 0}, s, l, k); ok {
					used++
				}
			}
		}
	}
	if used != 1024 {
		t.Errorf("vreg (0,0) holds %d elements, want 1024 of 2048 slots", used)
	}
}

func TestFact06BF16Cols256(t *testing.T) {
	if n := mustCount(t, vl(16, 8, 128), 8, 256); n != 1 {
		t.Errorf("bf16[8,256] in (8,128): %d vregs, want 1", n)
	}
	if n := mustCount(t, vl(16, 16, 128), 8, 256); n != 2 {
		t.Errorf("bf16[8,256] in (16,128): %d vregs, want 2", n)
	}
}

func TestFact07BF16TiledPlace(t *testing.T) {
	p := wantPlace(t, vl(16, 8, 128), []int64{13, 200}, []int64{1, 0}, 6, 72, 1)
	if p.Tile != 1 {
		t.Errorf("tile %d, want 1", p.Tile)
	}
}

func TestFact08MemoryWordEqualsVregWord(t *testing.T) {
	m := mem(t, "bf16[16,256]{1,0:T(8,128)(2,1)}")
	wantWord(t, m, []int64{5, 130}, 770, 1)
	p := wantPlace(t, m.LoadLayout(), []int64{5, 130}, []int64{0, 0}, 6, 2, 1)
	if w := p.Word(DefaultTarget); w != 770 {
		t.Errorf("vreg word %d, want 770", w)
	}
}

func TestFact09NativeVregNotContiguous(t *testing.T) {
	m := mem(t, "bf16[16,256]{1,0:T(8,128)(2,1)}")
	loc := wantWord(t, m, []int64{9, 7}, 1031, 1)
	if !slices.Equal(loc.Tile, []int64{1, 0}) || loc.Word/m.tileWrds != 2 {
		t.Errorf("tile %v (number %d), want (1,0) = 2", loc.Tile, loc.Word/m.tileWrds)
	}
	p := wantPlace(t, NativeLayout(DefaultTarget, 16), []int64{9, 7}, []int64{0, 0}, 4, 7, 1)
	if int64(p.Word(DefaultTarget)) == loc.Word {
		t.Error("native vreg word equals the memory word; the vreg should not be contiguous")
	}
}

func TestFact10NativeMemory(t *testing.T) {
	m := mem(t, "bf16[16,256]{1,0:T(16,128)(2,1)}")
	wantWord(t, m, []int64{9, 7}, 519, 1)
	p := wantPlace(t, NativeLayout(DefaultTarget, 16), []int64{9, 7}, []int64{0, 0}, 4, 7, 1)
	if w := p.Word(DefaultTarget); w != 4*128+7 || int64(w) != m.Locate([]int64{9, 7}).Word {
		t.Errorf("native vreg word %d, want 519", w)
	}
	if m.LoadLayout() != NativeLayout(DefaultTarget, 16) {
		t.Errorf("T(16,128)(2,1) loads as %s, want the native layout", m.LoadLayout())
	}
}

func TestFact11S8Native(t *testing.T) {
	native := NativeLayout(DefaultTarget, 8)
	if native.Tiling != [2]int64{32, 128} {
		t.Fatalf("s8 native tiling %v", native.Tiling)
	}
	wantPlace(t, native, []int64{6, 3}, []int64{0, 0}, 1, 3, 2)
	// Slot 2 is bits 16..23: an image word holding 0xAB there unpacks to 0xAB at (6,3).
	r := Vreg{Index: []int64{0, 0}, Words: make([]uint32, 1024)}
	r.Words[1*128+3] = 0xAB << 16
	for _, e := range native.Unpack([]int64{32, 128}, r) {
		if e.Bits != 0 && !slices.Equal(e.Index, []int64{6, 3}) {
			t.Errorf("bits %#x unpacked at %v", e.Bits, e.Index)
		}
		if slices.Equal(e.Index, []int64{6, 3}) && e.Bits != 0xAB {
			t.Errorf("(6,3) unpacked as %#x", e.Bits)
		}
	}
}

func TestFact12S8Memory(t *testing.T) {
	wantWord(t, mem(t, "s8[32,256]{1,0:T(8,128)(4,1)}"), []int64{9, 3}, 515, 1)
	wantWord(t, mem(t, "s8[32,256]{1,0:T(32,128)(4,1)}"), []int64{9, 3}, 259, 1)
}

func TestFact13S8TiledPlace(t *testing.T) {
	v := vl(8, 8, 128)
	if s := v.VregSlice(); s != [2]int64{8, 512} {
		t.Errorf("s8 (8,128) vreg slice %v, want (8,512)", s)
	}
	p := wantPlace(t, v, []int64{11, 300}, []int64{1, 0}, 4, 44, 3)
	if p.Tile != 2 {
		t.Errorf("tile %d, want 2", p.Tile)
	}
}

func TestFact14S4Native(t *testing.T) {
	native := NativeLayout(DefaultTarget, 4)
	if native.Tiling != [2]int64{64, 128} {
		t.Fatalf("s4 native tiling %v", native.Tiling)
	}
	wantPlace(t, native, []int64{63, 127}, []int64{0, 0}, 7, 127, 7)
	wantPlace(t, native, []int64{8, 0}, []int64{0, 0}, 1, 0, 0)
}

func TestFact15BF16SingleRowInvalid(t *testing.T) {
	err := vl(16, 1, 128).Validate()
	if !errors.Is(err, ErrInvalidLayout) {
		t.Errorf("bf16 (1,128): %v, want ErrInvalidLayout", err)
	}
	for _, v := range []VregLayout{vl(16, 2, 128), vl(16, 4, 128), vl(16, 8, 128), vl(16, 16, 128), vl(16, 1, 256),
		vl(8, 4, 128), vl(8, 8, 128), vl(8, 16, 128), vl(8, 32, 128), vl(8, 1, 512)} {
		if err := v.Validate(); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	// The memory form is rejected too: t0 = 1 is not a multiple of p = 2.
	_, err = NewMemTiling(DefaultTarget, layout.MustParse("bf16[4,256]{1,0:T(1,128)(2,1)}"))
	var re *RuleError
	if !errors.As(err, &re) || re.Rule != RuleTileRows {
		t.Errorf("bf16 T(1,128)(2,1): %v, want rule %s", err, RuleTileRows)
	}
}

func TestFact16VregSlices(t *testing.T) {
	for _, c := range []struct {
		v    VregLayout
		want [2]int64
	}{
		{vl(32, 1, 128), [2]int64{1, 1024}},
		{vl(32, 2, 128), [2]int64{2, 512}},
		{vl(16, 2, 128), [2]int64{2, 1024}},
		{vl(16, 1, 256), [2]int64{1, 2048}},
		{vl(8, 4, 128), [2]int64{4, 1024}},
		{vl(8, 16, 128), [2]int64{16, 256}},
	} {
		if err := c.v.Validate(); err != nil {
			t.Errorf("%s: %v", c.v, err)
		}
		if got := c.v.VregSlice(); got != c.want {
			t.Errorf("%s: vreg slice %v, want %v", c.v, got, c.want)
		}
	}
}

func TestFact17BF16OneD(t *testing.T) {
	v := vl(16, 1, 256)
	v.Implicit = ImplicitSecondMinor
	wantPlace(t, v, []int64{200}, []int64{0, 0}, 0, 72, 1)
	wantPlace(t, v, []int64{1000}, []int64{0, 0}, 3, 104, 1)
	for _, c := range []int64{0, 5, 127, 256, 1541} {
		a, b := v.Place([]int64{c}), v.Place([]int64{c + 128})
		if a.Sublane != b.Sublane || a.Lane != b.Lane || a.Slot != 0 || b.Slot != 1 {
			t.Errorf("elements %d and %d: %v, %v; want one word, slots 0 and 1", c, c+128, a, b)
		}
	}
	// Every (1,x) tiling places alike (spec §2.1).
	w := vl(16, 1, 512)
	w.Implicit = ImplicitSecondMinor
	for _, c := range []int64{0, 200, 1000, 2047, 5000} {
		if a, b := v.Place([]int64{c}), w.Place([]int64{c}); a.String() != b.String() {
			t.Errorf("element %d: (1,256) %v, (1,512) %v", c, a, b)
		}
	}
}

func TestFact18Offsets(t *testing.T) {
	v := vl(16, 16, 128)
	v.Offsets = [2]int64{1, 0}
	wantPlace(t, v, []int64{0, 5}, []int64{0, 0}, 0, 5, 1)
	if idx, ok := v.Element([]int64{16, 128}, []int64{0, 0}, 0, 5, 0); ok {
		t.Errorf("slot 0 of sublane 0 should be padding under offset 1, got %v", idx)
	}
}

func TestFact19CompactTile(t *testing.T) {
	l, err := DefaultLayout(V5e, layout.BF16, []int64{3, 200})
	if err != nil {
		t.Fatal(err)
	}
	s := layout.NewShape(layout.BF16, 3, 200).WithLayout(l)
	if got := s.String(); got != "bf16[3,200]{1,0:T(4,128)(2,1)}" {
		t.Fatalf("default layout %s", got)
	}
	m, err := NewMemTiling(DefaultTarget, s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes() != 2048 {
		t.Errorf("bytes %d, want 2048", m.Bytes())
	}
	f, err := FootprintOf(V5e, s)
	if err != nil {
		t.Fatal(err)
	}
	if f.Bytes != 2048 || f.LogicalBytes != 1200 || f.PaddingBytes != 848 {
		t.Errorf("footprint %v", f)
	}
	wantWord(t, m, []int64{2, 150}, 406, 0)
	p := wantPlace(t, m.LoadLayout(), []int64{2, 150}, []int64{0, 0}, 3, 22, 0)
	if p.Word(DefaultTarget) != 406 {
		t.Errorf("vreg word %d, want 406", p.Word(DefaultTarget))
	}
}

func TestFact20Bytes(t *testing.T) {
	m := mem(t, "f32[12,320]{1,0:T(8,128)}")
	if m.Bytes() != 24576 {
		t.Errorf("bytes %d, want 24576", m.Bytes())
	}
	f, err := FootprintOf(V4, m.Shape())
	if err != nil {
		t.Fatal(err)
	}
	if f.Vregs != 6 || f.Tiles != 6 || f.TileBytes != 4096 {
		t.Errorf("footprint %v", f)
	}
}

func TestFact21TileRows(t *testing.T) {
	off := TilingFlags{}
	for _, c := range []struct {
		bits    int
		rows    int64
		want    int64
		flags   TilingFlags
		version int
	}{
		{32, 1, 1, off, 4}, {32, 2, 2, off, 4}, {32, 3, 4, off, 4}, {32, 5, 8, off, 4}, {32, 16, 8, off, 4},
		{16, 1, 2, off, 4}, {16, 3, 4, off, 4}, {16, 8, 8, off, 4}, {16, 32, 8, off, 4},
		{8, 2, 4, off, 4}, {8, 32, 8, off, 4}, {8, 32, 32, TilingFlags{X8: true}, 4},
		{4, 3, 8, off, 4},
		{32, 1, 2, off, 2}, {32, 1, 2, off, 3},
	} {
		if got := TileRows(c.version, 8, c.bits, c.rows, c.flags, false); got != c.want {
			t.Errorf("v%d %d-bit rows %d flags %+v: %d, want %d", c.version, c.bits, c.rows, c.flags, got, c.want)
		}
	}
	// Through DefaultLayout, flags off (a kernel argument).
	l, err := DefaultLayout(V5e, layout.S8, []int64{32, 256}, WithFlags(off))
	if err != nil || l.String() != "{1,0:T(8,128)(4,1)}" {
		t.Errorf("s8[32,256] no flags: %s %v", l, err)
	}
	l, err = DefaultLayout(V5e, layout.S8, []int64{32, 256}, WithFlags(TilingFlags{X8: true}))
	if err != nil || l.String() != "{1,0:T(32,128)(4,1)}" {
		t.Errorf("s8[32,256] x8 flag: %s %v", l, err)
	}
	l, err = DefaultLayout(V2, layout.F32, []int64{1, 256})
	if err != nil || l.String() != "{1,0:T(2,128)}" {
		t.Errorf("f32[1,256] on v2: %s %v", l, err)
	}
}

// Fact 22 (scratch arrays of 16-bit types take the large tile from v6e) is in
// TestDefaultLayoutTable.

func TestFact23OneDTiling(t *testing.T) {
	l, err := DefaultLayout(V5e, layout.BF16, []int64{4096})
	if err != nil || l.String() != "{0:T(1024)(128)(2,1)}" {
		t.Errorf("bf16[4096]: %s %v", l, err)
	}
	m, err := NewMemTiling(DefaultTarget, layout.NewShape(layout.BF16, 4096).WithLayout(l))
	if err != nil {
		t.Fatal(err)
	}
	// Element c and c+128 share a word; the load layout places them alike.
	for _, c := range []int64{0, 1, 200, 1000, 4095 - 128} {
		a, b := m.Locate([]int64{c}), m.Locate([]int64{c + 128})
		pa := m.LoadLayout().Place([]int64{c})
		if (c/128)%2 == 0 && (a.Word != b.Word || a.Slot != 0 || b.Slot != 1) {
			t.Errorf("elements %d, %d at %v, %v", c, c+128, a, b)
		}
		if got := pa.Vreg[1]*1024 + int64(pa.Word(DefaultTarget)); got != a.Word {
			t.Errorf("element %d: vreg word %d, memory word %d", c, got, a.Word)
		}
	}
}

func TestFact24StackedRowsRejected(t *testing.T) {
	s := layout.MustParse("bf16[16,128]{1,0:T(8,128)(2,1,1,1)}")
	_, err := NewMemTiling(DefaultTarget, s)
	var re *RuleError
	if !errors.As(err, &re) || re.Rule != RulePackingTile || !errors.Is(err, ErrNotLoadable) {
		t.Fatalf("T(8,128)(2,1,1,1): %v, want rule %s", err, RulePackingTile)
	}
	// The model's stacked-rows arrangement pairs rows r and r+8 …
	st := tiled{dims: []int64{16, 128}, bits: 16, t0: 8, L: 128, pack: 2, stacked: true}
	for r := int64(0); r < 8; r++ {
		a, b := st.pos([]int64{r, 7}), st.pos([]int64{r + 8, 7})
		if a/32 != b/32 || a%32 != 0 || b%32 != 16 {
			t.Errorf("rows %d and %d: bits %d and %d, want one word", r, r+8, a, b)
		}
	}
	// … and agrees with XLA's nested tiling of that layout.
	ix, err := layout.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int64, 2)
	for {
		if got, want := st.pos(idx), ix.BitOffset(idx); got != want {
			t.Fatalf("%v: model bit %d, layout bit %d", idx, got, want)
		}
		if !layout.NextIndex(idx, s.Dims) {
			break
		}
	}
}

func TestFact25VregCount3D(t *testing.T) {
	if n := mustCount(t, NativeLayout(DefaultTarget, 16), 4, 1024, 4096); n != 8192 {
		t.Errorf("bf16[4,1024,4096] native: %d vregs, want 8192", n)
	}
}
