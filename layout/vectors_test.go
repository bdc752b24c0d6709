package layout

import (
	"slices"
	"strings"
	"testing"
)

// Test vectors from docs/layout-semantics.md "Test vectors": offsets in elements, the logical
// size (XLA's ByteSizeOf) and the nested footprint.
var vectors = []struct {
	shape     string
	offsets   map[string]int64 // "i,j" → element offset
	byteSize  int64            // ByteSizeOf, unpadded; -1 to skip
	footElems int64
	footBytes int64
}{
	{"f32[3,5]{1,0:T(2,2)}", map[string]int64{"0,0": 0, "0,2": 4, "1,1": 3, "2,3": 17, "2,4": 20}, 60, 24, 96},
	{"f32[3,5]{0,1:T(2,2)}", map[string]int64{"1,0": 1, "0,1": 2, "2,0": 4, "2,4": 20}, 60, 24, 96},
	{"f32[8,4]{1,0:T(2,2)}", map[string]int64{"3,1": 11, "7,3": 31}, 128, 32, 128},
	{"f32[8,4]{1,0}", map[string]int64{"3,1": 13}, 128, 32, 128},
	{"bf16[4,8]{1,0:T(2,4)(2,1)}", map[string]int64{"1,0": 1, "0,1": 2, "0,4": 8, "2,0": 16, "3,7": 31}, 64, 32, 64},
	{"bf16[2,8,128]{2,1,0:T(8,128)(2,1)}", map[string]int64{"0,0,0": 0, "0,1,0": 1, "0,0,1": 2, "0,2,0": 256, "1,0,0": 1024}, 4096, 2048, 4096},
	{"bf16[256,1024]{1,0:T(8,128)(2,1)}", map[string]int64{"1,0": 1, "0,1": 2, "2,0": 256, "3,5": 267, "7,127": 1023, "0,128": 1024, "8,0": 8192, "255,1023": 262143}, 524288, 262144, 524288},
	{"bf16[3,5]{1,0:T(8,128)(2,1)}", map[string]int64{"1,0": 1, "2,0": 256, "0,4": 8, "2,4": 264}, 30, 1024, 2048},
	{"s8[16,256]{1,0:T(8,128)(4,1)}", map[string]int64{"1,0": 1, "3,0": 3, "4,0": 512, "0,1": 4, "0,128": 1024, "8,0": 2048}, 4096, 4096, 4096},
	{"bf16[2048]{0:T(1024)(128)(2,1)}", map[string]int64{"0": 0, "1": 2, "128": 1, "129": 3, "256": 256, "1023": 1023, "1024": 1024}, 4096, 2048, 4096},
	{"f32[2,3,4]{0,1,2:T(512)}", map[string]int64{"1,0,0": 1, "0,1,0": 512, "0,0,1": 1536, "1,2,3": 5633}, 96, 6144, 24576},
	{"f32[2,3,4]{0,1,2:T(512,1024)}", map[string]int64{"1,0,0": 1, "0,1,0": 1024, "0,0,1": 524288}, 96, 2097152, 8388608},
	{"bf16[2,3,4]{1,2,0:T(16,256)(2,1)}", map[string]int64{"0,1,0": 2, "0,0,1": 1, "1,0,0": 4096}, 48, 8192, 16384},
	{"f32[123,456]{0,1:T(2,128)}", map[string]int64{"1,0": 1, "0,1": 128, "122,455": 58362}, 224352, 58368, 233472},
	{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", map[string]int64{"0,0,0,0,3": 6, "0,0,0,1,0": 19, "0,0,1,0,0": 3, "1,6,7,10,9": 12430}, 49280, 12432, 49728},
	{"bf16[2,3,1004]{2,1,0:T(2,*,128)}", map[string]int64{"0,1,0": 1900, "1,0,0": 128, "0,0,128": 256, "1,2,1003": 6083}, 12048, 6144, 12288},
	{"s4[64,128]{1,0:E(4)}", map[string]int64{"0,1": 1, "1,0": 128}, 4096, 8192, 4096},
	{"s4[64,128]{1,0}", map[string]int64{"0,1": 1}, 8192, 8192, 8192},
	{"s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", map[string]int64{"1,0": 1, "7,0": 7, "8,0": 1024, "0,1": 8, "0,128": 8192, "64,0": 393216}, 28311552, 56623104, 28311552},
	{"f32[3,5]{1,0:T(2,2)L(100)}", nil, 60, 100, 400},
	{"f32[3,5]{1,0:L(16)}", map[string]int64{"0,0": 0, "1,2": 7, "2,4": 14}, 60, 15, 60},
	{"f32[10,10]{1,0:L(3)}", map[string]int64{"9,9": 99}, 400, 100, 400},
	{"f32[3,5]{1,0:T(1,1)L(16)}", map[string]int64{"0,0": 0, "1,2": 7, "2,4": 14}, 60, 16, 64},
	{"f32[3,5]{1,0:T(2,2)(3,1)}", nil, 60, 36, 144},
	{"f32[1000]{0:T(256)}", map[string]int64{"999": 999}, 4000, 1024, 4096},
	{"u32[]{:T(128)}", map[string]int64{"": 0}, 4, 128, 512},
	{"f32[]{:T(256)}", map[string]int64{"": 0}, 4, 256, 1024},
	{"f32[3]{0:T(2,128)}", nil, 12, 256, 1024},
	// TransposePlan-style single tilings (spec "TransposePlan-style offsets").
	{"f32[7,12]{1,0:T(5,2)}", map[string]int64{"0,0": 0, "0,1": 1, "1,0": 2, "6,11": 113, "5,3": 71}, -1, 120, 480},
	{"f32[7,12]{1,0:T(5)}", map[string]int64{"1,0": 15, "6,11": 101, "5,3": 78}, -1, 105, 420},
	{"f32[2,4,6]{2,1,0:T(2,3)}", map[string]int64{"0,0,1": 1, "0,1,0": 3, "0,0,3": 6, "0,2,0": 12, "1,0,0": 24, "1,3,5": 47}, -1, 48, 192},
}

func parseIndex(t *testing.T, s string) []int64 {
	t.Helper()
	if s == "" {
		return []int64{}
	}
	var idx []int64
	for _, f := range strings.Split(s, ",") {
		var v int64
		for _, c := range f {
			v = v*10 + int64(c-'0')
		}
		idx = append(idx, v)
	}
	return idx
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.shape, func(t *testing.T) {
			ix, err := Compile(MustParse(v.shape))
			if err != nil {
				t.Fatal(err)
			}
			for is, want := range v.offsets {
				idx := parseIndex(t, is)
				if got := ix.Offset(idx); got != want {
					t.Errorf("Offset(%s) = %d, want %d", is, got, want)
				}
				back := make([]int64, len(idx))
				if !ix.Index(want, back) || !slices.Equal(back, idx) {
					t.Errorf("Index(%d) = %v, want %v", want, back, idx)
				}
			}
			if v.byteSize >= 0 && ix.LogicalBytes() != v.byteSize {
				t.Errorf("LogicalBytes = %d, want %d", ix.LogicalBytes(), v.byteSize)
			}
			if ix.FootprintElements() != v.footElems || ix.FootprintBytes() != v.footBytes {
				t.Errorf("footprint = %d el / %d B, want %d / %d", ix.FootprintElements(), ix.FootprintBytes(), v.footElems, v.footBytes)
			}
		})
	}
}

// Sub-byte: byte = floor(off·E/8), nibble = off mod 2, least significant first.
func TestSubByteBitOffsets(t *testing.T) {
	ix, _ := Compile(MustParse("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}"))
	for _, c := range []struct {
		idx        []int64
		byte, bits int64
	}{{[]int64{1, 0}, 0, 4}, {[]int64{7, 0}, 3, 4}, {[]int64{8, 0}, 512, 0}, {[]int64{0, 1}, 4, 0}} {
		bo := ix.BitOffset(c.idx)
		if bo/8 != c.byte || bo%8 != c.bits || ix.ByteOffset(c.idx) != c.byte {
			t.Errorf("%v: bit offset %d, want byte %d bit %d", c.idx, bo, c.byte, c.bits)
		}
	}
	ix, _ = Compile(MustParse("s4[64,128]{1,0}"))
	if ix.ByteOffset([]int64{0, 1}) != 1 || ix.ElementBits() != 8 {
		t.Errorf("s4 without E must take a byte per element")
	}
}

// The full grids of Figures 1 and 2.
func TestFigureGrids(t *testing.T) {
	grids := map[string][][]int64{
		"f32[3,5]{1,0:T(2,2)}":       {{0, 1, 4, 5, 8}, {2, 3, 6, 7, 10}, {12, 13, 16, 17, 20}},
		"f32[3,5]{0,1:T(2,2)}":       {{0, 2, 8, 10, 16}, {1, 3, 9, 11, 17}, {4, 6, 12, 14, 20}},
		"bf16[4,8]{1,0:T(2,4)(2,1)}": {{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}, {16, 18, 20, 22, 24, 26, 28, 30}, {17, 19, 21, 23, 25, 27, 29, 31}},
		"bf16[4,8]{1,0:T(2,4)}":      {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}, {16, 17, 18, 19, 24, 25, 26, 27}, {20, 21, 22, 23, 28, 29, 30, 31}},
	}
	for s, g := range grids {
		ix, err := Compile(MustParse(s))
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range g {
			for j, want := range row {
				if got := ix.Offset([]int64{int64(i), int64(j)}); got != want {
					t.Errorf("%s (%d,%d) = %d, want %d", s, i, j, got, want)
				}
			}
		}
	}
}

func TestLevels(t *testing.T) {
	ix, _ := Compile(MustParse("bf16[2048]{0:T(1024)(128)(2,1)}"))
	var got []string
	for _, l := range ix.Levels() {
		got = append(got, l.Name+"="+Tile(l.Dims).String())
	}
	want := "physical=(2048) T(1024)=(2,1024) T(128)=(2,8,128) T(2,1)=(2,4,128,2,1)"
	if strings.Join(got, " ") != want {
		t.Errorf("levels %v, want %s", got, want)
	}
	ix, _ = Compile(MustParse("bf16[3,5]{1,0:T(8,128)(2,1)}"))
	if f := ix.PaddingFraction(); f != float64(1024-15)/1024 {
		t.Errorf("padding fraction %v", f)
	}
	ex := ix.Explain([]int64{2, 4})
	if len(ex) != 2 || Tile(ex[0].Within).String() != "(2,4)" || Tile(ex[1].Outer).String() != "(0,0,1,4)" || Tile(ex[1].Within).String() != "(0,0)" {
		t.Errorf("Explain = %+v", ex)
	}
}

func TestCompileRejects(t *testing.T) {
	bad := []Shape{
		{DType: F32, Dims: []int64{2, 3}, Layout: Layout{MinorToMajor: []int{0, 0}}},
		{DType: F32, Dims: []int64{2, 3}, Layout: Layout{MinorToMajor: []int{1, 0}, Tiles: []Tile{{}}}},
		{DType: F32, Dims: []int64{2, 3}, Layout: Layout{MinorToMajor: []int{1, 0}, Tiles: []Tile{{0, 128}}}},
		{DType: F32, Dims: []int64{2, 3}, Layout: Layout{MinorToMajor: []int{1, 0}, Tiles: []Tile{{2, Combined}}}},
		{DType: F32, Dims: []int64{2, 3}, Layout: Layout{MinorToMajor: []int{1, 0}, Tiles: []Tile{{2, 2}, {Combined, 1}}}},
		{DType: F32, Dims: []int64{Unbounded, 3}, Dynamic: []bool{true, false}, Layout: Layout{MinorToMajor: []int{1, 0}}},
		{Kind: Tuple},
		{DType: F32, Dims: []int64{1 << 40, 1 << 40}, Layout: Layout{MinorToMajor: []int{1, 0}}},
	}
	for _, s := range bad {
		if _, err := Compile(s); err == nil {
			t.Errorf("Compile(%v) succeeded", s)
		}
	}
	// A shape built in code without minor_to_major is row-major.
	ix, err := Compile(Shape{DType: F32, Dims: []int64{3, 5}})
	if err != nil || ix.Offset([]int64{1, 2}) != 7 {
		t.Errorf("default layout: %v", err)
	}
}

func TestBoundedDynamicSizedAtBound(t *testing.T) {
	ix, err := Compile(MustParse("f32[123,<=456]"))
	if err != nil || ix.FootprintBytes() != 123*456*4 {
		t.Fatalf("bounded dims must size at the bound: %v", err)
	}
}
