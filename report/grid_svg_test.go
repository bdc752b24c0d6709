package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

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
	ix, err := layout.Compile(layout.MustParse(shape))
	if err != nil {
		t.Fatal(err)
	}
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
