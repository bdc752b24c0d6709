package algebra

import (
	"errors"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func mapping(t *testing.T, s string) Mapping {
	t.Helper()
	sh, err := layout.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromXLA(sh)
	if err != nil {
		t.Fatalf("FromXLA(%s): %v", s, err)
	}
	return m
}

// The design note's §1 table and §5 case 1-2: the CuTe form of each XLA layout.
func TestCuteForms(t *testing.T) {
	for _, c := range []struct {
		xla, one, canonical, reason string
		size, cosize, alloc         int64
		extents                     []int64
	}{
		{"f32[16,256]{1,0:T(8,128)}", "((8,2),(128,2)):((128,2048),(1,1024))", "((8,2),(128,2)):((128,2048),(1,1024))", "", 4096, 4096, 4096, []int64{16, 256}},
		{"bf16[16,256]{1,0:T(8,128)(2,1)}", "((2,4,2),(128,2)):((1,256,2048),(2,1024))", "((2,4,2),(128,2)):((1,256,2048),(2,1024))", "", 4096, 4096, 4096, []int64{16, 256}},
		{"f32[8,256]{0,1:T(8,128)}", "(8,(8,32)):(1,(128,1024))", "(8,256):(1,128)", "", 2048, 32648, 32768, []int64{8, 256}},
		{"f32[4,16,256]{2,1,0:T(8,128)}", "(4,(8,2),(128,2)):(4096,(128,2048),(1,1024))", "(4,(8,2),(128,2)):(4096,(128,2048),(1,1024))", "", 16384, 16384, 16384, []int64{4, 16, 256}},
		{"f32[300]{0:T(128)}", "(128,3):(1,128)", "300:1", "", 384, 384, 384, []int64{384}},
		{"f32[20,300]{1,0:T(8,128)}", "((8,3),(128,3)):((128,3072),(1,1024))", "((8,3),(128,3)):((128,3072),(1,1024))", "", 24 * 384, 9216, 9216, []int64{24, 384}},
		{"f32[4,8,256]{2,1,0:T(*,8,128)}", "(4,8,(128,2)):(2048,128,(1,1024))", "(4,8,(128,2)):(2048,128,(1,1024))", "", 8192, 8192, 8192, []int64{4, 8, 256}},
		{"f32[2,4,256]{2,1,0:T(*,8,128)}", "(2,4,(128,2)):(512,128,(1,1024))", "(2,4,(128,2)):(512,128,(1,1024))", "", 2048, 2048, 2048, []int64{2, 4, 256}},
		{"f32[16,256]{1,0:T(8,128)(3,1)}", "", "", "tile 3 does not divide radix 8", 0, 0, 4608, nil},
		{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "", "", "a tile cuts the '*'-merged dim 4 (size 10) at 3 elements of it", 0, 0, 12432, nil},
	} {
		m := mapping(t, c.xla)
		if m.Alloc != c.alloc || m.Reason != c.reason || !slices.Equal(m.Extents, c.extents) {
			t.Errorf("%s: alloc %d reason %q extents %v, want %d %q %v", c.xla, m.Alloc, m.Reason, m.Extents, c.alloc, c.reason, c.extents)
		}
		if c.one == "" {
			if m.One != nil {
				t.Errorf("%s: one layout %s, want a chain", c.xla, m.One)
			}
			continue
		}
		if m.One == nil {
			t.Errorf("%s: chain (%s), want %s", c.xla, m.Reason, c.one)
			continue
		}
		can, _ := m.Canonical()
		if m.One.String() != c.one || can.String() != c.canonical || m.One.Size() != c.size || m.One.Cosize() != c.cosize {
			t.Errorf("%s: %s canonical %s size %d cosize %d, want %s %s %d %d", c.xla, m.One, can, m.One.Size(), m.One.Cosize(), c.one, c.canonical, c.size, c.cosize)
		}
	}
}

// §5 case 2: the 32-bit word view of a packed type; §2: the s4 example.
func TestWords(t *testing.T) {
	for _, c := range []struct{ xla, words string }{
		{"bf16[16,256]{1,0:T(8,128)(2,1)}", "((4,2),(128,2)):((128,1024),(1,512))"},
		{"s4[64,256]{1,0:T(64,128)(8,1)E(4)}", "(8,(128,2)):(128,(1,1024))"},
	} {
		m := mapping(t, c.xla)
		w, err := m.Words()
		if err != nil || w.String() != c.words {
			t.Errorf("%s: words %s, %v; want %s", c.xla, w, err, c.words)
		}
	}
}

// §3 and §5 case 3: equal when the canonical forms and the allocations agree.
func TestEqualCases(t *testing.T) {
	for _, c := range []struct {
		a, b          string
		sameMap       bool
		allocA, alocB int64
	}{
		{"f32[24,128]{1,0:T(8,128)}", "f32[24,128]{1,0}", true, 3072, 3072},
		{"f32[4,8,256]{2,1,0:T(*,8,128)}", "f32[4,8,256]{2,1,0:T(8,128)}", true, 8192, 8192},
		{"f32[300]{0:T(128)}", "f32[300]{0:T(256)}", true, 384, 512},
		{"f32[2,3,4]{2,1,0:T(8,128)}", "f32[2,3,4]{2,1,0}", false, 2048, 24},
	} {
		ma, mb := mapping(t, c.a), mapping(t, c.b)
		ca, _ := ma.Canonical()
		cb, _ := mb.Canonical()
		if ca.Equal(cb) != c.sameMap || ma.Alloc != c.allocA || mb.Alloc != c.alocB {
			t.Errorf("%s vs %s: %s vs %s, alloc %d vs %d; want same map %v, alloc %d vs %d", c.a, c.b, ca, cb, ma.Alloc, mb.Alloc, c.sameMap, c.allocA, c.alocB)
		}
	}
}

// §5 case 4: the copy map dst ∘ right_inverse(src) and its common vector.
func TestCopyMapCases(t *testing.T) {
	for _, c := range []struct {
		src, dst, copymap, coalesced, common string
		vector                               int64
	}{
		{"f32[16,256]{1,0}", "f32[16,256]{1,0:T(8,128)}", "((128,2),(8,2)):((1,1024),(128,2048))", "(128,2,8,2):(1,1024,128,2048)", "128:16", 128},
		{"f32[24,128]{1,0}", "f32[24,128]{1,0:T(8,128)}", "(128,24):(1,128)", "3072:1", "(128,24):(24,1)", 3072},
		{"bf16[16,256]{1,0:T(8,128)}", "bf16[16,256]{1,0:T(8,128)(2,1)}", "", "", "1:0", 1},
	} {
		src, dst := mapping(t, c.src), mapping(t, c.dst)
		cm, err := Compose(*dst.One, RightInverse(*src.One))
		if err != nil {
			t.Fatalf("%s → %s: %v", c.src, c.dst, err)
		}
		if c.copymap != "" && (cm.String() != c.copymap || Coalesce(cm).String() != c.coalesced) {
			t.Errorf("%s → %s: copy map %s (coalesced %s), want %s (%s)", c.src, c.dst, cm, Coalesce(cm), c.copymap, c.coalesced)
		}
		v, err := MaxCommonVector(*dst.One, *src.One)
		if err != nil || v != c.vector {
			t.Errorf("%s → %s: vector %d, %v; want %d", c.src, c.dst, v, err, c.vector)
		}
		l, err := MaxCommonLayout(*dst.One, *src.One)
		if err != nil || l.String() != c.common {
			t.Errorf("%s → %s: common layout %s, %v; want %s", c.src, c.dst, l, err, c.common)
		}
	}
}

// §5 case 5: the logical index at an offset, or padding.
func TestWhereisCases(t *testing.T) {
	for _, c := range []struct {
		xla  string
		off  int64
		want []int64 // nil: padding
	}{
		{"f32[16,256]{1,0:T(8,128)}", 6660 * 8 / 32, []int64{5, 129}},
		{"f32[8,256]{0,1:T(8,128)}", 200, nil},
		{"f32[8,256]{0,1:T(8,128)}", 129, []int64{1, 1}},
		{"f32[16,256]{1,0:T(8,128)(3,1)}", 0, []int64{0, 0}},
		{"f32[300]{0:T(128)}", 299, []int64{299}},
		{"f32[300]{0:T(128)}", 300, nil},
	} {
		m := mapping(t, c.xla)
		idx, ok, err := m.Index(c.off)
		if err != nil || ok != (c.want != nil) || (ok && !slices.Equal(idx, c.want)) {
			t.Errorf("%s at %d: %v ok %v err %v, want %v", c.xla, c.off, idx, ok, err, c.want)
		}
	}
}

// §5 case 6: how a block cuts Ex. 1 (zipped divide, tile mode's runs), and the padding.
func TestBlocksCases(t *testing.T) {
	m := mapping(t, "f32[16,256]{1,0:T(8,128)}")
	for _, c := range []struct {
		block                [2]int64
		blocks, runs, runLen int64
		have, need           int64 // a divisibility failure
	}{
		{[2]int64{8, 128}, 4, 1, 1024, 0, 0},
		{[2]int64{8, 256}, 2, 1, 2048, 0, 0},
		{[2]int64{16, 128}, 2, 2, 1024, 0, 0},
		{[2]int64{4, 256}, 4, 2, 512, 0, 0},
		{[2]int64{12, 128}, 0, 0, 0, 8, 12},
	} {
		z, err := ZippedDivide(*m.One, []Layout{Leaf(c.block[0], 1), Leaf(c.block[1], 1)})
		if c.have != 0 {
			var de *DivisibilityError
			if !errors.As(err, &de) || !errors.Is(err, ErrNotComposable) || de.Have != c.have || de.Need != c.need {
				t.Errorf("block %v: %v, want divisibility failure %d vs %d", c.block, err, c.have, c.need)
			}
			continue
		}
		if err != nil {
			t.Fatalf("block %v: %v", c.block, err)
		}
		n, runs := Runs(z.Mode(0))
		if z.Mode(1).Size() != c.blocks || runs != c.runs || n != c.runLen {
			t.Errorf("block %v: %s: %d blocks, %d runs of %d; want %d, %d of %d", c.block, z, z.Mode(1).Size(), runs, n, c.blocks, c.runs, c.runLen)
		}
	}
	p := mapping(t, "f32[8,256]{0,1:T(8,128)}")
	comp, n, err := p.Padding()
	if err != nil || comp.String() != "16:8" || n != 30720 {
		t.Errorf("padding: %s, %d, %v; want 16:8, 30720", comp, n, err)
	}
}

// §3: products that build the tiles of Ex. 1 and Ex. 2.
func TestProductCases(t *testing.T) {
	b, err := BlockedProduct(MustNew(Ints(8, 128), Ints(128, 1)), MustNew(Ints(2, 2), Ints(2, 1)))
	if err != nil || b.String() != "((8,2),(128,2)):((128,2048),(1,1024))" {
		t.Errorf("blocked product: %s, %v", b, err)
	}
	r, err := RakedProduct(MustNew(Ints(4, 128), Ints(256, 2)), MustNew(Ints(2, 1), Ints(1, 0)))
	if err != nil || r.String() != "((2,4),(1,128)):((1,256),(0,2))" {
		t.Errorf("raked product: %s, %v", r, err)
	}
	l, err := LogicalProduct(Leaf(4, 1), Leaf(3, 1))
	if err != nil || l.String() != "(4,3):(1,4)" {
		t.Errorf("logical product: %s, %v", l, err)
	}
}

// §2: the pycute failure: composing a T(8,128) layout with the (3,1) tile's split of
// the 8 rows is not one layout; Compose says so instead of returning a wrong one.
func TestComposeRefusesInexact(t *testing.T) {
	m := mapping(t, "f32[16,256]{1,0:T(8,128)(3,1)}")
	_, err := composeChain(m.Chain)
	var de *DivisibilityError
	if !errors.As(err, &de) {
		t.Fatalf("compose of the chain: %v, want a divisibility error", err)
	}
	_, err = Compose(MustNew(Ints(8, 2), Ints(128, 2048)), Leaf(12, 1))
	if !errors.As(err, &de) || de.Condition != "shape" || de.Have != 8 || de.Need != 12 {
		t.Fatalf("compose: %v, want a shape divisibility error 8 vs 12", err)
	}
	_, err = Compose(MustNew(Ints(8, 2), Ints(1, 16)), Leaf(4, 3))
	if !errors.As(err, &de) || de.Condition != "stride" {
		t.Fatalf("compose: %v, want a stride divisibility error", err)
	}
}

// A scalar is the layout 1:0, like CuTe's, and its one element is at offset 0.
func TestScalar(t *testing.T) {
	m := mapping(t, "f32[]{:T(128)}")
	off, err := m.Offset(nil)
	if m.One == nil || m.One.String() != "1:0" || err != nil || off != 0 || m.Alloc != 128 {
		t.Fatalf("scalar: %v, offset %d (%v), alloc %d", m.One, off, err, m.Alloc)
	}
	idx, ok, err := m.Index(0)
	if !ok || err != nil || len(idx) != 0 {
		t.Errorf("scalar index of 0: %v %v %v", idx, ok, err)
	}
	if _, ok, _ := m.Index(1); ok {
		t.Errorf("scalar: offset 1 is not padding")
	}
	if e, err := m.Exact(); err != nil || e.String() != "1:0" {
		t.Errorf("scalar exact: %s %v", e, err)
	}
}

// Operations on an invalid layout (a shape of 0, the zero Layout) return ErrInvalid.
func TestInvalidLayoutIsAnError(t *testing.T) {
	bad := Layout{Ints(0, 2), Ints(1, 1)}
	if _, err := Upcast(bad, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("upcast: %v", err)
	}
	if _, err := Downcast(bad, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("downcast: %v", err)
	}
	if _, err := Compose(Layout{}, Leaf(2, 1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("compose: %v", err)
	}
	if _, err := Parse("(2,3):(1)"); !errors.Is(err, ErrInvalid) {
		t.Errorf("parse of mismatched nesting: %v", err)
	}
	var pe *ParseError
	if _, err := Parse("(2,3):(1,"); !errors.As(err, &pe) || pe.Pos != 9 {
		t.Errorf("parse of cut text: %v", err)
	}
	for in, msg := range map[string]string{
		"(2,x):(1,1)":                    `expected an integer or '(': parsing "": invalid syntax`,
		"99999999999999999999:1":         `expected an integer or '(': parsing "99999999999999999999": value out of range`,
		"(2,3):(1,99999999999999999999)": `expected an integer or '(': parsing "99999999999999999999": value out of range`,
	} {
		if _, err := Parse(in); !errors.As(err, &pe) || pe.Msg != msg {
			t.Errorf("Parse(%q): %v, want a ParseError saying %q", in, err, msg)
		}
	}
}
