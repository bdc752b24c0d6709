package report_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// TestGridWindow: Rows and Cols pick a window like a Python slice; each way one can be
// wrong is a *report.SettingError naming the setting in the caller's words.
func TestGridWindow(t *testing.T) {
	ix, err := layout.Compile(layout.MustParse("f32[6,10]"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rows, cols string
		r, c       int64
		first      int64 // offset of the window's first element
	}{
		{"", "", 6, 10, 0},
		{"2:4", "", 2, 10, 20},
		{"4:", " 3 : 5 ", 2, 2, 43},
		{":1", "9:", 1, 1, 9},
	} {
		g, err := report.NewGrid(ix, report.GridOptions{Rows: c.rows, Cols: c.cols})
		if err != nil {
			t.Errorf("rows %q cols %q: %v", c.rows, c.cols, err)
			continue
		}
		r, cols := g.Size()
		if r != c.r || cols != c.c || g.Offsets()[0][0] != c.first || int64(len(g.Offsets()[0])) != r*cols {
			t.Errorf("rows %q cols %q: %d×%d from offset %d, want %d×%d from %d", c.rows, c.cols, r, cols, g.Offsets()[0][0], c.r, c.c, c.first)
		}
	}
	words := report.GridWords{MaxSide: "--max", MaxSlices: "--max-slices", Rows: "--rows", Cols: "--cols"}
	vec, err := layout.Compile(layout.MustParse("f32[10]"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ix         *layout.Indexer
		rows, cols string
		setting    string
		want       string
	}{
		{ix, "2", "", "--rows", `bad --rows "2": want A:B, the rows from A up to but not including B`},
		{ix, "x:4", "", "--rows", `bad --rows "x:4": "x" is not a row number ≥ 0`},
		{ix, "", "1:-2", "--cols", `bad --cols "1:-2": "-2" is not a column number ≥ 0`},
		{ix, "", "0:11", "--cols", "--cols 0:11 reaches past the end: dim 1 has 10 columns (0:10)"},
		{ix, "3:3", "", "--rows", "--rows 3:3 is empty: A must be less than B"},
		{vec, "0:1", "", "--rows", "--rows 0:1: an array of rank 1 shows no rows"},
	} {
		_, err := report.NewGrid(c.ix, report.GridOptions{Rows: c.rows, Cols: c.cols, Words: words})
		var se *report.SettingError
		if !errors.As(err, &se) || se.Setting != c.setting || se.Error() != c.want || se.Error() != c.want {
			t.Errorf("rows %q cols %q: %v; want a SettingError of %s: %s", c.rows, c.cols, err, c.setting, c.want)
		}
	}
	// Without Words, messages name the fields.
	_, err = report.NewGrid(ix, report.GridOptions{Rows: "9:"})
	if err == nil || !strings.HasPrefix(err.Error(), "Rows 9: is empty") {
		t.Errorf("default words: %v", err)
	}
	// A rank-1 array's window is its columns.
	g, err := report.NewGrid(vec, report.GridOptions{Cols: "7:"})
	if err != nil || !slices.Equal(g.Offsets()[0], []int64{7, 8, 9}) {
		t.Errorf("vector window: %v", err)
	}
}
