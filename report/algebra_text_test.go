package report_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tpulayout/tpulayout/report"
)

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
	ex, err := report.ExplainIndex(compile(t, "f32[3,5]{1,0:T(2,2)}"), []int64{2, 3})
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
