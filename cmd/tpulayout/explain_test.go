package main

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

func TestExplainOffset17(t *testing.T) {
	out := mustRun(t, "explain", "f32[3,5]{1,0:T(2,2)}", "2,3")
	m := regexp.MustCompile(`(?m)^offset:\s+(\d+)`).FindStringSubmatch(out)
	if m == nil || m[1] != "17" {
		t.Fatalf("explain f32[3,5]{1,0:T(2,2)} 2,3 does not say offset 17:\n%s", out)
	}
	for _, want := range []string{"byte offset:        68 ", "tile level T(2,2):  tile (1,1) of [2,3], within tile (0,1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestExplainVectors checks the spec's index → offset test vectors through --json.
func TestExplainVectors(t *testing.T) {
	vectors := map[string]map[string]int64{
		"f32[3,5]{1,0:T(2,2)}":                     {"0,0": 0, "0,2": 4, "1,1": 3, "2,3": 17, "2,4": 20},
		"f32[3,5]{0,1:T(2,2)}":                     {"1,0": 1, "0,1": 2, "2,0": 4, "2,4": 20},
		"f32[8,4]{1,0:T(2,2)}":                     {"3,1": 11, "7,3": 31},
		"f32[8,4]{1,0}":                            {"3,1": 13},
		"bf16[4,8]{1,0:T(2,4)(2,1)}":               {"1,0": 1, "0,1": 2, "0,4": 8, "2,0": 16, "3,7": 31},
		"bf16[2,8,128]{2,1,0:T(8,128)(2,1)}":       {"0,0,0": 0, "0,1,0": 1, "0,0,1": 2, "0,2,0": 256, "1,0,0": 1024},
		"bf16[256,1024]{1,0:T(8,128)(2,1)}":        {"1,0": 1, "0,1": 2, "2,0": 256, "3,5": 267, "7,127": 1023, "0,128": 1024, "8,0": 8192, "255,1023": 262143},
		"bf16[3,5]{1,0:T(8,128)(2,1)}":             {"1,0": 1, "2,0": 256, "0,4": 8, "2,4": 264},
		"s8[16,256]{1,0:T(8,128)(4,1)}":            {"1,0": 1, "3,0": 3, "4,0": 512, "0,1": 4, "0,128": 1024, "8,0": 2048},
		"bf16[2048]{0:T(1024)(128)(2,1)}":          {"0": 0, "1": 2, "128": 1, "129": 3, "256": 256, "1023": 1023, "1024": 1024},
		"f32[2,3,4]{0,1,2:T(512)}":                 {"1,0,0": 1, "0,1,0": 512, "0,0,1": 1536, "1,2,3": 5633},
		"bf16[2,3,4]{1,2,0:T(16,256)(2,1)}":        {"0,1,0": 2, "0,0,1": 1, "1,0,0": 4096},
		"f32[123,456]{0,1:T(2,128)}":               {"1,0": 1, "0,1": 128, "122,455": 58362},
		"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}": {"0,0,0,0,3": 6, "0,0,0,1,0": 19, "0,0,1,0,0": 3, "1,6,7,10,9": 12430},
		"bf16[2,3,1004]{2,1,0:T(2,*,128)}":         {"0,1,0": 1900, "1,0,0": 128, "0,0,128": 256, "1,2,1003": 6083},
		"f32[1000]{0:T(256)}":                      {"999": 999},
		"u32[]{:T(128)}":                           {"": 0, "()": 0},
	}
	for shape, v := range vectors {
		for idx, want := range v {
			m := runJSON(t, "explain", shape, idx, "--json")
			if got := num(t, m, "offset"); got != want {
				t.Errorf("explain %s %s: offset %d, want %d", shape, idx, got, want)
			}
			bits := num(t, m, "element_bits")
			if got := num(t, m, "byte_offset"); got != want*bits/8 {
				t.Errorf("explain %s %s: byte_offset %d, want %d", shape, idx, got, want*bits/8)
			}
			if m["padding"] != false {
				t.Errorf("explain %s %s: padding = %v", shape, idx, m["padding"])
			}
		}
	}
}

// TestExplainSubByte checks byte and bit offsets of packed types (LSB first).
func TestExplainSubByte(t *testing.T) {
	cases := []struct {
		shape, idx                      string
		offset, byteOff, bitOff, bitInB int64
	}{
		{"s4[64,128]{1,0:E(4)}", "0,1", 1, 0, 4, 4},
		{"s4[64,128]{1,0:E(4)}", "1,0", 128, 64, 512, 0},
		{"s4[64,128]{1,0}", "0,1", 1, 1, 8, 0},
		{"s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", "7,0", 7, 3, 28, 4},
		{"s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", "8,0", 1024, 512, 4096, 0},
		{"s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", "0,1", 8, 4, 32, 0},
	}
	for _, c := range cases {
		m := runJSON(t, "explain", c.shape, c.idx, "--json")
		got := []int64{num(t, m, "offset"), num(t, m, "byte_offset"), num(t, m, "bit_offset"), num(t, m, "bit_in_byte")}
		want := []int64{c.offset, c.byteOff, c.bitOff, c.bitInB}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("explain %s %s: offset, byte, bit, bit in byte = %v, want %v", c.shape, c.idx, got, want)
		}
	}
	out := mustRun(t, "explain", "s4[64,128]{1,0:E(4)}", "(0,1)")
	if !strings.Contains(out, "byte offset:     0, bits 4..7 of it") {
		t.Errorf("explain s4 does not name the bits:\n%s", out)
	}
}

func TestExplainLevelsJSON(t *testing.T) {
	m := runJSON(t, "explain", "bf16[256,1024]{1,0:T(8,128)(2,1)}", "3,5", "--json")
	levels := m["levels"].([]any)
	if len(levels) != 2 {
		t.Fatalf("levels = %v", levels)
	}
	want := []map[string][]int64{
		{"tile": {8, 128}, "tile_index": {0, 0}, "tile_counts": {32, 8}, "within_tile": {3, 5}},
		{"tile": {2, 1}, "tile_index": {0, 0, 1, 5}, "tile_counts": {32, 8, 4, 128}, "within_tile": {1, 0}},
	}
	for i, l := range levels {
		for k, w := range want[i] {
			if got := ints(t, l.(map[string]any), k); !reflect.DeepEqual(got, w) {
				t.Errorf("level %d %s = %v, want %v", i, k, got, w)
			}
		}
	}
	if got := ints(t, m, "index"); !reflect.DeepEqual(got, []int64{3, 5}) {
		t.Errorf("index = %v", got)
	}
}

// TestExplainOffsetRoundTrip walks every offset of the footprint with --offset: each is
// padding exactly when no logical index maps to it, and otherwise names that index.
func TestExplainOffsetRoundTrip(t *testing.T) {
	for _, shape := range []string{
		"f32[3,5]{1,0:T(2,2)}",
		"f32[3,5]{0,1:T(2,2)}",
		"bf16[4,8]{1,0:T(2,4)(2,1)}",
		"f32[3,5]{1,0:T(2,2)(3,1)}",
		"f32[3,5]{1,0:T(2,2)L(30)}",
		"f32[2,3,5]{1,2,0:T(2,2)}",
		"f32[2,3,4]{2,1,0:T(*,2,3)}",
		"s4[3,5]{1,0:T(2,4)E(4)}",
		"f32[]{:T(4)}",
		"f32[7]{0:T(4)}",
	} {
		ix, err := layout.Compile(layout.MustParse(shape))
		if err != nil {
			t.Fatal(err)
		}
		owner := map[int64]string{}
		idx := make([]int64, ix.Rank())
		if ix.LogicalElements() > 0 {
			for {
				owner[ix.Offset(idx)] = joinInts(idx)
				if !layout.NextIndex(idx, ix.Dims()) {
					break
				}
			}
		}
		for off := range ix.FootprintElements() {
			m := runJSON(t, "explain", shape, "--offset", strconv.FormatInt(off, 10), "--json")
			if num(t, m, "offset") != off {
				t.Errorf("%s --offset %d: offset %v", shape, off, m["offset"])
			}
			want, isElem := owner[off]
			if m["padding"] != !isElem {
				t.Errorf("%s --offset %d: padding = %v, want %v", shape, off, m["padding"], !isElem)
				continue
			}
			if !isElem {
				if _, ok := m["index"]; ok {
					t.Errorf("%s --offset %d: padding with an index %v", shape, off, m["index"])
				}
				if r, _ := m["reason"].(string); r == "" {
					t.Errorf("%s --offset %d: padding without a reason", shape, off)
				}
				continue
			}
			if got := joinInts(ints(t, m, "index")); got != want {
				t.Errorf("%s --offset %d: index (%s), want (%s)", shape, off, got, want)
			}
		}
		wantUsageError(t, []string{"explain", shape, "--offset", strconv.FormatInt(ix.FootprintElements(), 10)}, "outside the footprint")
	}
}

func TestExplainOffsetText(t *testing.T) {
	out := mustRun(t, "explain", "f32[3,5]{1,0:T(2,2)}", "--offset", "17")
	if !strings.Contains(out, "index:              (2,3)\n") || !strings.Contains(out, "offset:             17 ") {
		t.Errorf("explain --offset 17:\n%s", out)
	}
	out = mustRun(t, "explain", "f32[3,5]{1,0:T(2,2)}", "--offset", "11")
	if !strings.Contains(out, "11 is padding") || !strings.Contains(out, "rounds dim 1 of the physical shape [3,5] up from 5 to 6") {
		t.Errorf("explain --offset 11:\n%s", out)
	}
	// Padding from the second tile level: T(3,1) pads the 2 rows of a T(2,2) tile to 3.
	out = mustRun(t, "explain", "f32[3,5]{1,0:T(2,2)(3,1)}", "--offset", "2")
	if !strings.Contains(out, "2 is padding") || !strings.Contains(out, "tile T(3,1) rounds dim 2 of the T(2,2) shape [2,3,2,2] up from 2 to 3") {
		t.Errorf("explain --offset 2 of T(2,2)(3,1):\n%s", out)
	}
	m := runJSON(t, "explain", "f32[3,5]{1,0:T(2,2)L(100)}", "--offset", "50", "--json")
	if m["padding"] != true || m["tail_padding"] != true {
		t.Errorf("tail padding: %v", m)
	}
}

// joinInts prints an index as "2,3".
func joinInts[T int | int64](d []T) string {
	s := report.DimsText(d)
	return s[1 : len(s)-1]
}
