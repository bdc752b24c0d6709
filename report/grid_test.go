package report

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestGridOffsetsAreTheOracle: every offset a grid shows, window or not, is the
// layout's own for that element, and the SVG draws one cell per element.
func TestGridOffsetsAreTheOracle(t *testing.T) {
	for _, c := range []struct {
		shape      string
		rows, cols string
	}{
		{"f32[3,5]{1,0:T(2,2)}", "", ""},
		{"bf16[2,20,300]{2,1,0:T(8,128)(2,1)}", "8:16", "250:"},
		{"s4[300]{0:T(512)E(4)}", "", ":40"},
		{"f32[]", "", ""},
		{"f32[2,3,5]{1,2,0:T(2,2)}", "", ""},
		{"f32[2,2,3,4]{0,1,2,3:T(2,2)}", "", ""},
		{"bf16[2,3,1004]{2,1,0:T(2,*,128)}", "", ""},
		{"f32[7]{0:T(4)}", "", ""},
		{"s4[5,9]{0,1:T(2,4)(2,1)E(4)}", "", ""},
	} {
		ix, err := layout.Compile(layout.MustParse(c.shape))
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGrid(ix, GridOptions{Rows: c.rows, Cols: c.cols, SVG: true, MaxSide: 1004})
		if err != nil {
			t.Fatalf("%s: %v", c.shape, err)
		}
		rows, cols := g.Size()
		var r0, c0 int64
		if c.rows != "" {
			r0 = g.rowsWin.lo
		}
		if c.cols != "" {
			c0 = g.colsWin.lo
		}
		cells := 0
		for s, offs := range g.Offsets() {
			for r := range rows {
				for col := range cols {
					idx := append(append([]int64{}, g.Slices()[s]...), []int64{r0 + r, c0 + col}[2-min(2, ix.Rank()):]...)
					if want := ix.Offset(idx); offs[r*cols+col] != want {
						t.Errorf("%s at %v: offset %d, want %d", c.shape, idx, offs[r*cols+col], want)
					}
					cells++
				}
			}
		}
		if n := strings.Count(string(g.SVG()), `class="off"`); n != cells {
			t.Errorf("%s: the SVG draws %d cells, the grid has %d", c.shape, n, cells)
		}
	}
}

// TestGridSettings: a bad window is a *SettingError in the caller's words; a grid
// past the limits names them too.
func TestGridSettings(t *testing.T) {
	ix, _ := layout.Compile(layout.MustParse("f32[4096,4096]"))
	_, err := NewGrid(ix, GridOptions{Rows: "4090:4100", Cols: "0:8", Words: GridWords{"--max", "--max-slices", "--rows", "--cols"}})
	var se *SettingError
	if !errors.As(err, &se) || se.Setting != "--rows" || !strings.Contains(se.Error(), "--rows 4090:4100 reaches past the end: dim 0 has 4096 rows") {
		t.Errorf("window past the end: %v", err)
	}
	_, err = NewGrid(ix, GridOptions{})
	if err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), "raise MaxSide to show it, or show a window with Rows A:B Cols C:D") {
		t.Errorf("too large: %v", err)
	}
}

func ExampleNewGrid() {
	ix, _ := layout.Compile(layout.MustParse("f32[3,5]{1,0:T(2,2)}"))
	g, _ := NewGrid(ix, GridOptions{})
	g.WriteText(os.Stdout) // g.SVG() draws the same as a figure
	// Output:
	// f32[3,5]{1,0:T(2,2)}: element offsets, rows: dim 0, columns: dim 1
	//  0  1  4  5  8
	//  2  3  6  7 10
	// 12 13 16 17 20
	// footprint: 24 elements, 15 logical and 9 padding (37.5%)
}
