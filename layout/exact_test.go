package layout

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// roundTrip checks that Index inverts Offset on every logical index and that exactly
// LogicalElements offsets of the footprint decode to an index.
func roundTrip(t *testing.T, ix *Indexer) {
	t.Helper()
	s := ix.Shape()
	idx := make([]int64, ix.Rank())
	back := make([]int64, ix.Rank())
	for n := int64(0); n < ix.LogicalElements(); n++ {
		off := ix.Offset(idx)
		if off < 0 || off >= ix.FootprintElements() {
			t.Fatalf("%s %v: offset %d outside the footprint %d", s, idx, off, ix.FootprintElements())
		}
		if !ix.Index(off, back) || !slices.Equal(back, idx) {
			t.Fatalf("%s: Index(%d) = %v, want %v", s, off, back, idx)
		}
		NextIndex(idx, ix.Dims())
	}
	data := int64(0)
	for off := int64(0); off < ix.FootprintElements(); off++ {
		if ix.Index(off, back) {
			data++
		}
	}
	if data != ix.LogicalElements() {
		t.Fatalf("%s: %d offsets decode to an index, want %d", s, data, ix.LogicalElements())
	}
}

// A later tile with more dims than the shape it applies to reads the shape as if it had
// leading 1s (spec Part 1 §3); Index must drop those dims again when it undoes the tile.
// Issue #14 item 1: these decoded every offset to index 0, so the per-element relayout
// wrote 1,1,1,1 for 1,2,3,4.
func TestIndexLaterTileWiderThanShape(t *testing.T) {
	for _, c := range []string{
		"f32[2,2]{1,0:T(*,4)(1,1,4)}",
		"s8[8,2]{1,0:T(*,8)(128,8,64)}",
		"f32[4]{0:T(4)(1,1,4)}",
		"s1[4,9,2]{0,1,2:T(4)(4,1,8,1,8)(5,4)}",
		"bf16[3,5]{1,0:T(2)(2,2,2)(3,1,1,1)}",
		"s4[5,3]{0,1:T(*,2)(3,2,2)L(7)E(4)}",
	} {
		ix, err := Compile(MustParse(c))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		roundTrip(t, ix)
	}
	ix, _ := Compile(MustParse("f32[2,2]{1,0:T(*,4)(1,1,4)}"))
	for off, want := range [][]int64{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		got := make([]int64, 2)
		if !ix.Index(int64(off), got) || !slices.Equal(got, want) {
			t.Errorf("Index(%d) = %v, want %v", off, got, want)
		}
	}
}

// Error messages repeat at most about 200 bytes of a bad input (issue #14 item 15): a
// 120 KB layout string was echoed in full.
func TestParseErrorQuotesLittle(t *testing.T) {
	long := "f32[2,2]{1,0:T" + strings.Repeat("(1,1)", 24000) + "L(0)}"
	_, err := Parse(long)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if len(msg) > 400 || !strings.Contains(msg, "f32[2,2]{1,0:T(1,1)") || !strings.Contains(msg, "L(0)}") || !strings.Contains(msg, "bytes]") {
		t.Errorf("error of %d bytes: %.500s", len(msg), msg)
	}
	if _, err := Compile(Shape{DType: F32, Dims: []int64{2, 2}, Layout: Layout{MinorToMajor: []int{1, 0}, Tiles: slices.Repeat([]Tile{{1, 1}}, 24000)}}); err == nil || len(err.Error()) > 400 {
		t.Errorf("Compile error of %d bytes", len(err.Error()))
	}
	if got := Quote("short"); got != "short" {
		t.Errorf("Quote(short) = %q", got)
	}
	if got := Quote(strings.Repeat("é", 300)); !utf8.ValidString(got) {
		t.Errorf("Quote cut a rune: %q", got)
	}
}
