package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
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
		ix := testfiles.Compile(t, c.shape)
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

type svgSummary struct {
	offsets  []int64          // the <text class="off"> cells, in document order
	pads     int              // <rect class="pad"> cells
	fills    map[int64]string // offset → fill of the rect drawn just before its text
	notes    []string
	rootName string
}

// walkSVG decodes the SVG with encoding/xml, failing on malformed XML.
func walkSVG(t *testing.T, data []byte) svgSummary {
	t.Helper()
	s := svgSummary{fills: map[int64]string{}}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var inText, lastFill string
	var depth int
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, data)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				s.rootName = tk.Name.Local
			}
			depth++
			attr := map[string]string{}
			for _, a := range tk.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch tk.Name.Local {
			case "rect":
				if attr["class"] == "pad" {
					s.pads++
				}
				lastFill = attr["fill"]
			case "text":
				inText = attr["class"]
			}
		case xml.EndElement:
			depth--
			if tk.Name.Local == "text" {
				inText = ""
			}
		case xml.CharData:
			switch inText {
			case "off":
				v, err := strconv.ParseInt(string(tk), 10, 64)
				if err != nil {
					t.Fatalf("offset cell %q: %v", tk, err)
				}
				s.offsets = append(s.offsets, v)
				s.fills[v] = lastFill
			case "note":
				s.notes = append(s.notes, string(tk))
			}
		}
	}
	if depth != 0 {
		t.Fatalf("SVG ends with %d elements open", depth)
	}
	return s
}

func svgOf(t *testing.T, shape string) (*layout.Indexer, svgSummary) {
	t.Helper()
	ix := testfiles.Compile(t, shape)
	g, err := NewGrid(ix, GridOptions{SVG: true})
	if err != nil {
		t.Fatalf("%s: %v", shape, err)
	}
	return ix, walkSVG(t, g.SVG())
}

// TestGridSVG: the figure is well-formed XML with one text cell per logical element
// holding its offset (the layout's own, in index order), hatched cells exactly where
// tiles pad past the edges, and a note giving the footprint's padding elements.
func TestGridSVG(t *testing.T) {
	for _, c := range []struct {
		shape string
		pads  bool // hatched edge padding expected
	}{
		{"f32[3,5]{1,0:T(2,2)}", true},
		{"f32[3,5]{0,1:T(2,2)}", true},
		{"bf16[4,8]{1,0:T(2,4)(2,1)}", false},
		{"bf16[3,5]{1,0:T(8,128)(2,1)}", true},
		{"f32[2,3,5]{1,2,0:T(2,2)}", true},
		{"f32[7]{0:T(4)}", true},
		{"f32[]", false},
		{"f32[<=3,5]{1,0:T(2,2)}", true},     // '<' must be escaped
		{"f32[2,3,4]{2,1,0:T(*,2,3)}", true}, // [6,4] T(2,3) after the merge: dim 2 pads to 6
		{"f32[4,4]", false},
	} {
		ix, s := svgOf(t, c.shape)
		if s.rootName != "svg" {
			t.Errorf("%s: root element %q", c.shape, s.rootName)
		}
		var want []int64
		idx := make([]int64, ix.Rank())
		for {
			want = append(want, ix.Offset(idx))
			if !layout.NextIndex(idx, ix.Dims()) {
				break
			}
		}
		if !slices.Equal(s.offsets, want) {
			t.Errorf("%s: offset cells %v, want %v", c.shape, s.offsets, want)
		}
		if (s.pads > 0) != c.pads {
			t.Errorf("%s: %d hatched padding cells, want some: %v", c.shape, s.pads, c.pads)
		}
		pad := ix.FootprintElements() - ix.LogicalElements()
		if len(s.notes) == 0 || !strings.Contains(s.notes[0], "footprint: ") ||
			(pad > 0) != strings.Contains(s.notes[0], strconv.FormatInt(pad, 10)+" padding") {
			t.Errorf("%s: notes %q do not give the %d padding elements", c.shape, s.notes, pad)
		}
	}
}

// TestGridSVGTileColours: elements share a colour exactly when they share a
// first-level tile, for a grid of 2×2 tiles.
func TestGridSVGTileColours(t *testing.T) {
	_, s := svgOf(t, "f32[4,4]{1,0:T(2,2)}")
	// Offsets 0-3 are tile (0,0), 4-7 tile (0,1), 8-11 tile (1,0), 12-15 tile (1,1).
	for off := range int64(16) {
		for other := range int64(16) {
			if same := off/4 == other/4; (s.fills[off] == s.fills[other]) != same {
				t.Errorf("offsets %d and %d: fills %q and %q", off, other, s.fills[off], s.fills[other])
			}
		}
	}
}

// TestGridWindow: Rows and Cols pick a window like a Python slice; each way one can be
// wrong is a *SettingError naming the setting in the caller's words.
func TestGridWindow(t *testing.T) {
	ix := testfiles.Compile(t, "f32[6,10]")
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
		g, err := NewGrid(ix, GridOptions{Rows: c.rows, Cols: c.cols})
		if err != nil {
			t.Errorf("rows %q cols %q: %v", c.rows, c.cols, err)
			continue
		}
		r, cols := g.Size()
		if r != c.r || cols != c.c || g.Offsets()[0][0] != c.first || int64(len(g.Offsets()[0])) != r*cols {
			t.Errorf("rows %q cols %q: %d×%d from offset %d, want %d×%d from %d", c.rows, c.cols, r, cols, g.Offsets()[0][0], c.r, c.c, c.first)
		}
	}
	words := GridWords{MaxSide: "--max", MaxSlices: "--max-slices", Rows: "--rows", Cols: "--cols"}
	vec := testfiles.Compile(t, "f32[10]")
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
		_, err := NewGrid(c.ix, GridOptions{Rows: c.rows, Cols: c.cols, Words: words})
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != c.setting || se.Error() != c.want || se.Error() != c.want {
			t.Errorf("rows %q cols %q: %v; want a SettingError of %s: %s", c.rows, c.cols, err, c.setting, c.want)
		}
	}
	// Without Words, messages name the fields.
	_, err := NewGrid(ix, GridOptions{Rows: "9:"})
	if err == nil || !strings.HasPrefix(err.Error(), "Rows 9: is empty") {
		t.Errorf("default words: %v", err)
	}
	// A rank-1 array's window is its columns.
	g, err := NewGrid(vec, GridOptions{Cols: "7:"})
	if err != nil || !slices.Equal(g.Offsets()[0], []int64{7, 8, 9}) {
		t.Errorf("vector window: %v", err)
	}
}
