package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestInfoJSON(t *testing.T) {
	m := runJSON(t, "info", "bf16[3,5]{1,0:T(8,128)(2,1)}", "--json")
	for _, k := range []string{"shape", "dtype", "dims", "minor_to_major", "tiles", "levels",
		"logical_elements", "logical_bytes", "footprint_elements", "footprint_bytes",
		"element_bits", "padding_fraction"} {
		if _, ok := m[k]; !ok {
			t.Errorf("info --json has no key %q", k)
		}
	}
	if m["shape"] != "bf16[3,5]{1,0:T(8,128)(2,1)}" || m["dtype"] != "bf16" {
		t.Errorf("shape, dtype = %v, %v", m["shape"], m["dtype"])
	}
	for k, want := range map[string]int64{
		"logical_elements": 15, "logical_bytes": 30, "footprint_elements": 1024,
		"footprint_bytes": 2048, "element_bits": 16, "padding_elements": 1009,
	} {
		if got := num(t, m, k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	if got := ints(t, m, "dims"); !reflect.DeepEqual(got, []int64{3, 5}) {
		t.Errorf("dims = %v", got)
	}
	if got := ints(t, m, "minor_to_major"); !reflect.DeepEqual(got, []int64{1, 0}) {
		t.Errorf("minor_to_major = %v", got)
	}
	if f, _ := m["padding_fraction"].(json.Number).Float64(); f != 1009.0/1024 {
		t.Errorf("padding_fraction = %v", f)
	}
	tiles, _ := json.Marshal(m["tiles"])
	if string(tiles) != "[[8,128],[2,1]]" {
		t.Errorf("tiles = %s", tiles)
	}
	levels := m["levels"].([]any)
	var names []string
	for _, l := range levels {
		names = append(names, l.(map[string]any)["name"].(string))
	}
	if strings.Join(names, " ") != "physical T(8,128) T(2,1)" {
		t.Errorf("level names = %v", names)
	}
	if got := ints(t, levels[2].(map[string]any), "dims"); !reflect.DeepEqual(got, []int64{1, 1, 4, 128, 2, 1}) {
		t.Errorf("last level dims = %v", got)
	}
}

// TestInfoSizes checks the spec's "Nested" column (elements / bytes) and ByteSizeOf.
func TestInfoSizes(t *testing.T) {
	cases := []struct {
		shape                     string
		logicalBytes, foot, bytes int64
	}{
		{"f32[3,5]{1,0:T(2,2)}", 60, 24, 96},
		{"f32[3,5]{0,1:T(2,2)}", 60, 24, 96},
		{"f32[8,4]{1,0:T(2,2)}", 128, 32, 128},
		{"bf16[4,8]{1,0:T(2,4)(2,1)}", 64, 32, 64},
		{"bf16[2,8,128]{2,1,0:T(8,128)(2,1)}", 4096, 2048, 4096},
		{"bf16[256,1024]{1,0:T(8,128)(2,1)}", 524288, 262144, 524288},
		{"bf16[3,5]{1,0:T(8,128)(2,1)}", 30, 1024, 2048},
		{"s8[16,256]{1,0:T(8,128)(4,1)}", 4096, 4096, 4096},
		{"bf16[2048]{0:T(1024)(128)(2,1)}", 4096, 2048, 4096},
		{"f32[2,3,4]{0,1,2:T(512)}", 96, 6144, 24576},
		{"f32[2,3,4]{0,1,2:T(512,1024)}", 96, 2097152, 8388608},
		{"bf16[2,3,4]{1,2,0:T(16,256)(2,1)}", 48, 8192, 16384},
		{"f32[123,456]{0,1:T(2,128)}", 224352, 58368, 233472},
		{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", 49280, 12432, 49728},
		{"bf16[2,3,1004]{2,1,0:T(2,*,128)}", 12048, 6144, 12288},
		{"s4[64,128]{1,0:E(4)}", 4096, 8192, 4096},
		{"s4[64,128]{1,0}", 8192, 8192, 8192},
		{"s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", 28311552, 56623104, 28311552},
		{"f32[3,5]{1,0:T(2,2)L(100)}", 60, 100, 400},
		{"f32[3,5]{1,0:L(16)}", 60, 15, 60}, // L(n) pads tiled layouts only, as in XLA
		{"f32[10,10]{1,0:L(3)}", 400, 100, 400},
		{"f32[3,5]{1,0:T(2,2)(3,1)}", 60, 36, 144},
		{"f32[1000]{0:T(256)}", 4000, 1024, 4096},
	}
	for _, c := range cases {
		m := runJSON(t, "info", c.shape, "--json")
		if got := num(t, m, "logical_bytes"); got != c.logicalBytes {
			t.Errorf("%s: logical_bytes = %d, want %d", c.shape, got, c.logicalBytes)
		}
		if got := num(t, m, "footprint_elements"); got != c.foot {
			t.Errorf("%s: footprint_elements = %d, want %d", c.shape, got, c.foot)
		}
		if got := num(t, m, "footprint_bytes"); got != c.bytes {
			t.Errorf("%s: footprint_bytes = %d, want %d", c.shape, got, c.bytes)
		}
	}
}

func TestInfoCombinedTileJSON(t *testing.T) {
	m := runJSON(t, "info", "--json", "bf16[2,3,1004]{2,1,0:T(2,*,128)}")
	tiles, _ := json.Marshal(m["tiles"])
	if string(tiles) != `[[2,"*",128]]` {
		t.Errorf("tiles = %s", tiles)
	}
	names := []string{}
	for _, l := range m["levels"].([]any) {
		names = append(names, l.(map[string]any)["name"].(string))
	}
	if strings.Join(names, " ") != "physical combined T(2,128)" {
		t.Errorf("level names = %v", names)
	}
}

func TestInfoText(t *testing.T) {
	out := mustRun(t, "info", "f32[3,5]{0,1:T(2,2)}")
	for _, want := range []string{
		"dtype:           f32\n",
		"minor_to_major:  {0,1}\n",
		"physical order:  [5,3], dims 1,0 major to minor\n",
		"expanded shape:  physical  [5,3]\n",
		"T(2,2)    [3,2,2,2]\n",
		"logical:         15 elements, 60 bytes\n",
		"footprint:       24 elements, 96 bytes\n",
		"padding:         9 elements, 37.5% of the footprint\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
}

// A padding share below 0.005% is not "0%" (issue #14 item 11).
func TestInfoSmallPaddingPercent(t *testing.T) {
	out := mustRun(t, "info", "f32[65535,128]{1,0:T(8,128)}")
	if !strings.Contains(out, "128 elements, 0.002% of the footprint") {
		t.Errorf("info:\n%s", out)
	}
}

// A sparse layout is described, never shown as dense; what needs its index math
// refuses it by name (issue #26).
func TestInfoSparse(t *testing.T) {
	got := mustRun(t, "info", "f32[10,10]{1,0:D(D,C)*(u32)}")
	for _, want := range []string{"f32[10,10]{1,0:D(D,C)*(u32)}", "dim 0 dense; dim 1 compressed", "pointers stored as u32", "depends on the number of stored elements"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	m := runJSON(t, "info", "--json", "f32[10,10]{1,0:D(D,C+~)#(u16)}")
	if m["sparse"] != true || m["index_type"] != "u16" || num(t, m, "logical_elements") != 100 || m["shape"] != "f32[10,10]{1,0:D(D,C+~)#(u16)}" {
		t.Errorf("info --json: %v", m)
	}
	// hlo --to tpu:GEN gives untiled dense arrays a default layout, never a sparse one.
	got = collapse(mustRun(t, "hlo", "../../testdata/hlo/SparseCOO.hlo", "--to", "tpu:v5e"))
	if !strings.Contains(got, "param 0 root f32[10,10] {1,0:D(C+,S)} - - -") || strings.Contains(got, "T(8,128)") {
		t.Errorf("hlo --to of a sparse module:\n%s", got)
	}
	for _, args := range [][]string{{"explain", "f32[10,10]{1,0:D(D,C)}", "1,1"}, {"show", "f32[10,10]{1,0:D(D,C)}"}} {
		if _, errOut, code := runCmd(t, args...); code == 0 || !strings.Contains(errOut, "sparse layouts are not supported by convert") {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
}

// Every shape in info --json is XLA text (issue 27: default_layout.shape and
// cheapest[].shape came out as Go structs with numbered kinds and dtypes).
func TestInfoJSONShapesAreText(t *testing.T) {
	out, errOut, code := runCmd(t, "info", "bf16[3,5]{1,0:T(8,128)(2,1)}", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v struct {
		Default  struct{ Shape string } `json:"default_layout"`
		Cheapest []struct{ Shape string }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("shapes are not strings: %v\n%s", err, out)
	}
	if _, err := layout.Parse(v.Default.Shape); err != nil {
		t.Errorf("default_layout.shape %q: %v", v.Default.Shape, err)
	}
	if len(v.Cheapest) == 0 {
		t.Fatalf("no cheapest layouts in\n%s", out)
	}
	for _, c := range v.Cheapest {
		if _, err := layout.Parse(c.Shape); err != nil {
			t.Errorf("cheapest shape %q: %v", c.Shape, err)
		}
	}
}
