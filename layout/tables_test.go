package layout

import (
	"math/rand/v2"
	"testing"
)

// TestDimOffsets checks DimOffset and DimOffsets against Offset on random layouts, and
// Separable by summing the dims' parts over every index.
func TestDimOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var separable, not int
	for cases := 0; cases < 2000; {
		s := randomShape(r)
		ix, err := Compile(s)
		if err != nil {
			t.Fatalf("Compile(%s): %v", s, err)
		}
		if ix.FootprintElements() > 1<<14 || ix.LogicalElements() == 0 {
			continue
		}
		cases++
		rank := ix.Rank()
		tabs := make([][]int64, rank)
		one := make([]int64, rank)
		for d := range rank {
			tabs[d] = ix.DimOffsets(d)
			if int64(len(tabs[d])) != ix.Dims()[d] {
				t.Fatalf("%s: DimOffsets(%d) has %d entries, want %d", s, d, len(tabs[d]), ix.Dims()[d])
			}
			for v := range ix.Dims()[d] {
				one[d] = v
				want := ix.Offset(one)
				if got := ix.DimOffset(d, v); got != want || tabs[d][v] != want {
					t.Fatalf("%s: dim %d value %d: DimOffset %d, DimOffsets %d, Offset %d", s, d, v, got, tabs[d][v], want)
				}
			}
			one[d] = 0
		}
		sums := true
		idx := make([]int64, rank)
		for ok := true; ok; ok = NextIndex(idx, ix.Dims()) {
			sum := int64(0)
			for d, v := range idx {
				sum += tabs[d][v]
			}
			if sum != ix.Offset(idx) {
				sums = false
				break
			}
		}
		if ix.Separable() && !sums {
			t.Fatalf("%s: Separable() = true, but offsets are not the sums of DimOffsets", s)
		}
		if ix.Separable() {
			separable++
		} else if !sums {
			not++
		}
	}
	if separable == 0 || not == 0 {
		t.Fatalf("random layouts: %d separable, %d not: the test does not cover both", separable, not)
	}
}

func TestSeparable(t *testing.T) {
	for s, want := range map[string]bool{
		"f32[3,5]{1,0:T(2,2)}":                     true,
		"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}": false,
		"bf16[2,3,1004]{2,1,0:T(2,*,128)}":         false,
		"bf16[2,1,1004]{2,1,0:T(2,*,128)}":         true, // merges a dim of size 1
		"f32[]":                                    true,
	} {
		ix, err := Compile(MustParse(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.Separable(); got != want {
			t.Errorf("%s: Separable() = %v, want %v", s, got, want)
		}
	}
}

func TestExpandedElements(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		s := randomShape(r)
		ix, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		lv := ix.Levels()
		n := int64(1)
		for _, d := range lv[len(lv)-1].Dims {
			n *= d
		}
		if got := ix.ExpandedElements(); got != n || got > ix.FootprintElements() {
			t.Fatalf("%s: ExpandedElements() = %d, want %d (footprint %d)", s, got, n, ix.FootprintElements())
		}
	}
	ix, _ := Compile(MustParse("f32[3,5]{1,0:T(2,2)L(100)}"))
	if ix.ExpandedElements() != 24 || ix.FootprintElements() != 100 {
		t.Errorf("f32[3,5]{1,0:T(2,2)L(100)}: expanded %d, footprint %d; want 24, 100", ix.ExpandedElements(), ix.FootprintElements())
	}
}

func TestDense(t *testing.T) {
	for _, c := range []struct {
		s        string
		row, col bool
	}{
		{"f32[3,5]", true, false},
		{"f32[3,5]{0,1}", false, true},
		{"f32[7]", true, true},
		{"f32[]", true, true},
		{"f32[3,5]{1,0:T(2,2)}", false, false},
		{"f32[4,4]{1,0:T(4,4)}", false, false}, // no padding, but tiled: not claimed
		{"f32[3,5]{1,0:L(16)}", true, false},   // L(n) pads tiled layouts only, as in XLA
		{"f32[3,5]{1,0:T(1,1)L(16)}", false, false},
		{"f32[3,5]{1,0:L(15)}", true, false},
		{"f32[3,5]{1,0:M(8)}", true, false},
		{"s4[4,6]{1,0:E(4)}", false, false},
		{"s4[4,6]", true, false}, // a byte each without E(n)
		{"f32[2,3,4]{1,2,0}", false, false},
	} {
		ix, err := Compile(MustParse(c.s))
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.IsRowMajorDense(); got != c.row {
			t.Errorf("%s: IsRowMajorDense() = %v, want %v", c.s, got, c.row)
		}
		if got := ix.IsColumnMajorDense(); got != c.col {
			t.Errorf("%s: IsColumnMajorDense() = %v, want %v", c.s, got, c.col)
		}
		if c.row { // what the name promises: offset = row-major linear index
			idx := make([]int64, ix.Rank())
			for lin := int64(0); lin < ix.LogicalElements(); lin++ {
				if ix.Offset(idx) != lin {
					t.Fatalf("%s: offset of %v is %d, want %d", c.s, idx, ix.Offset(idx), lin)
				}
				NextIndex(idx, ix.Dims())
			}
		}
	}
}

func TestFirstTileExtent(t *testing.T) {
	for _, c := range []struct {
		s    string
		dim  int
		want int64
		ok   bool
	}{
		{"bf16[256,1024]{1,0:T(8,128)(2,1)}", 0, 8, true},
		{"bf16[256,1024]{1,0:T(8,128)(2,1)}", 1, 128, true},
		{"f32[256,1024]{0,1:T(8,128)}", 1, 8, true},
		{"f32[256,1024]{0,1:T(8,128)}", 0, 128, true},
		{"f32[2,3,4]{2,1,0:T(8,128)}", 0, 1, true}, // not reached by the tile
		{"f32[3]{0:T(2,128)}", 0, 128, true},       // tile longer than the shape
		{"f32[3,5]", 0, 1, true},
		{"bf16[2,3,1004]{2,1,0:T(2,*,128)}", 0, 2, true},
		{"bf16[2,3,1004]{2,1,0:T(2,*,128)}", 1, 0, false}, // merged into dim 2
		{"bf16[2,3,1004]{2,1,0:T(2,*,128)}", 2, 0, false}, // holds dim 1 too
		{"f32[4,8]{1,0:T(*,2,128)}", 0, 2, true},          // merges a leading 1 only
		{"f32[4,8]{1,0:T(*,2,128)}", 1, 128, true},
	} {
		ix, err := Compile(MustParse(c.s))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := ix.FirstTileExtent(c.dim); got != c.want || ok != c.ok {
			t.Errorf("%s: FirstTileExtent(%d) = %d, %v; want %d, %v", c.s, c.dim, got, ok, c.want, c.ok)
		}
	}
}
