package report_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout/algebra"
	"github.com/tpulayout/tpulayout/report"
)

func mapping(t *testing.T, text string) algebra.Mapping {
	t.Helper()
	m, err := report.LayoutMapping(testfiles.Compile(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return m
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
		if got := testenv.JSON(t, c.got); !strings.Contains(got, c.want) {
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

// The algebra's reports as text, as the command prints them.
func TestAlgebraReportsText(t *testing.T) {
	tiled := mapping(t, "f32[16,256]{1,0:T(8,128)}")
	must := func(r interface{ WriteText(io.Writer) error }, err error) func(io.Writer) error {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r.WriteText
	}
	cute, err := report.NewCute(mapping(t, "bf16[16,256]{1,0:T(8,128)(2,1)}"), true)
	where, werr := report.NewWhereIs(mapping(t, "s4[8,256]{1,0:T(8,128)(2,1)E(4)}"), 3, true)
	cm, cerr := report.NewCopyMap(mapping(t, "f32[24,128]{1,0}"), mapping(t, "f32[24,128]{1,0:T(8,128)}"))
	bl, berr := report.NewBlocks(tiled, []int64{12, 128})
	for _, c := range []struct {
		write func(io.Writer) error
		want  string
	}{
		{must(cute, err), "shape:      bf16[16,256]{1,0:T(8,128)(2,1)}\n" +
			"cute:       ((2,4,2),(128,2)):((1,256,2048),(2,1024))\n" +
			"coalesced:  ((2,4,2),(128,2)):((1,256,2048),(2,1024))\n" +
			"size:       4096\ncosize:     4096\nextents:    [16,256]\n" +
			"words:      ((4,2),(128,2)):((128,1024),(1,512))\n" +
			"alloc:      4096 elements of 16 bits (8192 bytes)\n" +
			"padding:    0 elements, complement 1:0\n"},
		{must(where, werr), "byte 3: element 6: [0,3]\nbyte 3: element 7: [1,3]\n"},
		{must(cm, cerr), "copy map:   3072:1\nvector:     3072 elements (12288 bytes)\nbitcast:    yes\nclass:      bitcast\n"},
		{must(bl, berr), "misaligned: block 12 not aligned to tile 8 (dim 0)\n"},
		{report.NewPadding(mapping(t, "f32[8,256]{0,1:T(8,128)}")).WriteText,
			"padding:    30720 of 32768 elements (93.8%)\ncomplement: 16:8 (padding at layout(x)+complement(c), c ≥ 1)\n"},
	} {
		var b bytes.Buffer
		if err := c.write(&b); err != nil || b.String() != c.want {
			t.Errorf("got %q, %v\nwant %q", b.String(), err, c.want)
		}
	}
	eq, err := report.CompareLayouts(mapping(t, "f32[300]{0:T(128)}"), mapping(t, "f32[300]{0:T(256)}"))
	if err != nil || eq.Text() != "same element map, alloc 384 vs 512" {
		t.Errorf("equal: %v %q", err, eq.Text())
	}
}

// A SettingError names its setting, unwraps to its cause, and is worded by the
// caller: the words of its settings and of its cause.
func TestSettingErrorWords(t *testing.T) {
	_, err := report.NewCute(mapping(t, "f32[16]"), true)
	var se *report.SettingError
	if !errors.As(err, &se) || se.Setting != "Words" || se.Err == nil || !errors.Is(err, se.Err) {
		t.Fatalf("%v: want a SettingError of Words with its cause", err)
	}
	flags := func(s string) string { return "--" + map[string]string{"Words": "words"}[s] }
	got := se.Words(flags, func(c error) string { return "CAUSE" })
	if got != "--words: CAUSE" {
		t.Errorf("in a command's words: %q", got)
	}
	if want := "Words: " + se.Err.Error(); err.Error() != want {
		t.Errorf("%q, want %q", err.Error(), want)
	}
}

// An explanation as text, as `tpulayout explain` prints it.
func TestExplanationText(t *testing.T) {
	ex, err := report.ExplainIndex(testfiles.Compile(t, "f32[3,5]{1,0:T(2,2)}"), []int64{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	want := "shape:              f32[3,5]{1,0:T(2,2)}\n" +
		"index:              (2,3)\n" +
		"offset:             17 (elements)\n" +
		"element size:       32 bits\n" +
		"byte offset:        68 (bytes 68..71)\n" +
		"physical index:     (2,3) in [3,5]\n" +
		"tile level T(2,2):  tile (1,1) of [2,3], within tile (0,1)\n" +
		"expanded index:     (1,1,0,1) in [2,3,2,2]; the offset is row-major over it\n"
	if err := ex.WriteText(&b); err != nil || b.String() != want {
		t.Errorf("got %q, %v\nwant %q", b.String(), err, want)
	}
	if ex.Indexer() == nil || ex.Tile(0).String() != "(2,2)" {
		t.Errorf("Indexer %v, Tile %v", ex.Indexer(), ex.Tile(0))
	}
}
