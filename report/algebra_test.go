package report_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout/algebra"
	"github.com/tpulayout/tpulayout/report"
)

func mapping(t *testing.T, text string) algebra.Mapping {
	t.Helper()
	m, err := report.LayoutMapping(compile(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The algebra's reports as JSON, on cases of docs/algebra.md.
func TestAlgebraReportsJSON(t *testing.T) {
	tiled := mapping(t, "f32[16,256]{1,0:T(8,128)}")
	cute, err := report.NewCute(tiled, false)
	if err != nil {
		t.Fatal(err)
	}
	where, err := report.NewWhereIs(tiled, 6660, true)
	if err != nil {
		t.Fatal(err)
	}
	eq, err := report.CompareLayouts(mapping(t, "f32[300]{0:T(128)}"), mapping(t, "f32[300]{0:T(256)}"))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := report.NewCopyMap(mapping(t, "f32[24,128]{1,0}"), mapping(t, "f32[24,128]{1,0:T(8,128)}"))
	if err != nil {
		t.Fatal(err)
	}
	bl, err := report.NewBlocks(tiled, []int64{12, 128})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  any
		want string
	}{
		{cute, `"one":"((8,2),(128,2)):((128,2048),(1,1024))","coalesced":"((8,2),(128,2)):((128,2048),(1,1024))","size":4096,"cosize":4096,"extents":[16,256],"alloc":4096,"alloc_bytes":16384,"padding":0,"complement":"1:0"`},
		{where, `{"shape":"f32[16,256]{1,0:T(8,128)}","byte":6660,"element_bits":32,"elements":[{"element":1665,"padding":false,"index":[5,129]}]}`},
		{eq, `"equal":false,"same_map":true,"alloc_a":384,"alloc_b":512}`},
		{cm, `"copy_map":"3072:1","vector":3072,"vector_bytes":12288,"bitcast":true,"class":"bitcast"}`},
		{bl, `"block":[12,128],"misaligned":"block 12 not aligned to tile 8 (dim 0)"}`},
		{report.NewPadding(mapping(t, "f32[8,256]{0,1:T(8,128)}")), `"alloc":32768,"padding":30720,"fraction":0.9375,"extents":[8,256],"complement":"16:8"}`},
	} {
		if got := jsonText(t, c.got); !strings.Contains(got, c.want) {
			t.Errorf("got %s\nwant it to hold %s", got, c.want)
		}
	}
}

// Bad arguments are *SettingError naming the argument, never a panic.
func TestAlgebraReportsRefuse(t *testing.T) {
	tiled := mapping(t, "f32[16,256]{1,0:T(8,128)}")
	check := func(err error, setting, msg string) {
		t.Helper()
		var se *report.SettingError
		if !errors.As(err, &se) || se.Setting != setting || !strings.Contains(se.Error(), msg) {
			t.Errorf("got %v, want a SettingError of %s saying %q", err, setting, msg)
		}
	}
	for _, bl := range [][]int64{{0, 128}, {-8, 128}, {16, 0}} {
		_, err := report.NewBlocks(tiled, bl)
		check(err, "Block", "want a positive size")
	}
	_, err := report.NewBlocks(tiled, []int64{16})
	check(err, "Block", "1 entries for 2 dims")
	_, err = report.NewWhereIs(tiled, -1, false)
	check(err, "Element", "not a non-negative number")
	_, err = report.NewWhereIs(tiled, 16384, true)
	check(err, "Byte", "outside the allocation of 16384 bytes")
	_, err = report.CompareLayouts(tiled, mapping(t, "f32[16,128]"))
	check(err, "B", "the dims differ: [16,256] vs [16,128]")
	_, err = report.NewCopyMap(tiled, mapping(t, "bf16[16,256]"))
	check(err, "B", "the element widths differ: 32 vs 16 bits")
}
