package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// tilePalette colours first-level tiles. Neighbouring tiles along either grid axis get
// different colours (see tileColour).
var tilePalette = []string{"#cfe2f3", "#fde6c4", "#d9ead3", "#ead1dc"}

const (
	svgMargin   = 16
	svgCellH    = 24
	svgLine     = 18  // text line height
	svgCharW    = 7.3 // approximate advance of a 12px monospace character
	svgMaxExtra = 3   // hatched padding cells drawn past each edge, at most
)

// SVG draws the grid as an SVG figure. Every logical element is one <text class="off">.
func (g *Grid) SVG() []byte {
	v := g.svgView()
	var body bytes.Buffer
	y := svgMargin + 14
	fmt.Fprintf(&body, `<text class="title" x="%d" y="%d" font-weight="bold">%s</text>`+"\n", svgMargin, y, esc(v.title))
	y += svgLine
	fmt.Fprintf(&body, `<text class="caption" x="%d" y="%d" fill="#444">%s</text>`+"\n", svgMargin, y, esc(v.caption))
	y += svgLine / 2
	if len(g.offsets) == 0 {
		y += svgLine
		fmt.Fprintf(&body, `<text class="note" x="%d" y="%d">(no elements)</text>`+"\n", svgMargin, y)
	}
	for s := range g.offsets {
		y = g.svgSlice(&body, v, s, y)
	}
	y += 4
	for _, n := range v.notes {
		y += svgLine
		fmt.Fprintf(&body, `<text class="note" x="%d" y="%d" fill="#444">%s</text>`+"\n", svgMargin, y, esc(n))
	}
	return svgDocument(v.width, y+svgMargin, v.title, body.Bytes())
}

// svgView is what an SVG drawing of a grid shows besides the offsets: sizes, the
// padding cells drawn past the edges, and the text lines.
type svgView struct {
	cellW, labelW      int   // width of a cell and of the row labels
	drawRows, drawCols int64 // hatched padding rows and columns drawn past the edges
	tiles              []layout.Tile
	title, caption     string
	notes              []string // the lines under the grid
	width              int      // of the figure
}

// svgView measures the drawing: cells wide enough for the longest offset, and the padding
// past the edges, drawn when the window reaches the edge, at most svgMaxExtra cells.
func (g *Grid) svgView() svgView {
	width := 1
	for _, offs := range g.offsets {
		for _, o := range offs {
			width = max(width, len(strconv.FormatInt(o, 10)))
		}
	}
	v := svgView{
		cellW:  max(30, int(float64(width)*svgCharW)+14),
		labelW: int(float64(len(strconv.FormatInt(max(g.r0+g.rows-1, 0), 10))+1)*svgCharW) + 8,
		tiles:  g.ix.Shape().Layout.Tiles,
		title:  g.ix.Shape().String(),
	}
	padRows, padCols := g.paddedExtent(g.rowDim, g.fullRows), g.paddedExtent(g.colDim, g.fullCols)
	extraRows, extraCols := padRows-g.fullRows, padCols-g.fullCols
	if g.r0+g.rows < g.fullRows {
		extraRows = 0
	}
	if g.c0+g.cols < g.fullCols {
		extraCols = 0
	}
	v.drawRows, v.drawCols = min(extraRows, svgMaxExtra), min(extraCols, svgMaxExtra)

	colourNote := "untiled: one colour"
	if len(v.tiles) > 0 {
		colourNote = "colour: first-level tile T" + v.tiles[0].String()
	}
	v.caption = g.caption() + "; " + colourNote
	v.notes = append(v.notes, g.paddingNote())
	if v.drawRows > 0 || v.drawCols > 0 {
		var parts []string
		if extraRows > 0 {
			parts = append(parts, fmt.Sprintf("dim %d from %d to %d", g.rowDim, g.fullRows, padRows))
		}
		if extraCols > 0 {
			parts = append(parts, fmt.Sprintf("dim %d from %d to %d", g.colDim, g.fullCols, padCols))
		}
		n := fmt.Sprintf("hatched: tile padding past the array's edge (T%s pads %s)", v.tiles[0], strings.Join(parts, " and "))
		if extraRows > v.drawRows || extraCols > v.drawCols {
			n += fmt.Sprintf("; at most %d padding rows and columns drawn", svgMaxExtra)
		}
		v.notes = append(v.notes, n)
	}

	gridW := v.labelW + int(g.cols+v.drawCols)*v.cellW
	textW := 0
	for _, s := range append([]string{v.title, v.caption}, v.notes...) {
		textW = max(textW, int(float64(len([]rune(s)))*svgCharW)+1)
	}
	v.width = 2*svgMargin + max(gridW, textW)
	return v
}

// svgSlice draws slice s of the grid below y (its header when the array has more than
// two dims, column labels, then rows of cells coloured by tile, padding hatched) and
// returns the y under it.
func (g *Grid) svgSlice(body *bytes.Buffer, v svgView, s int, y int) int {
	offs := g.offsets[s]
	x0 := svgMargin + v.labelW
	cellW := v.cellW
	if g.rank > 2 {
		y += svgLine + 4
		fmt.Fprintf(body, `<text class="slice" x="%d" y="%d" font-weight="bold">%s</text>`+"\n", svgMargin, y, esc(g.sliceHeader(g.slices[s])))
	}
	// Column labels.
	y += svgLine
	if g.rank >= 1 {
		for c := range g.cols {
			fmt.Fprintf(body, `<text class="label" x="%d" y="%d" fill="#888" font-size="10" text-anchor="middle">%d</text>`+"\n",
				x0+int(c)*cellW+cellW/2, y, g.c0+c)
		}
	}
	y += 6
	top := y
	for r := range g.rows + v.drawRows {
		ry := top + int(r)*svgCellH
		if r < g.rows && g.rank >= 2 {
			fmt.Fprintf(body, `<text class="label" x="%d" y="%d" fill="#888" font-size="10" text-anchor="end">%d</text>`+"\n",
				x0-6, ry+svgCellH/2+4, g.r0+r)
		}
		for c := range g.cols + v.drawCols {
			cx := x0 + int(c)*cellW
			if r >= g.rows || c >= g.cols {
				fmt.Fprintf(body, `<rect class="pad" x="%d" y="%d" width="%d" height="%d" fill="url(#hatch)" stroke="#bbb" stroke-dasharray="3,2"/>`+"\n",
					cx, ry, cellW, svgCellH)
				continue
			}
			fill := tilePalette[0]
			if len(v.tiles) > 0 {
				fill = tilePalette[tileColour(g.ix.Explain(g.index(g.slices[s], r, c))[0].Outer)]
			}
			fmt.Fprintf(body, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff"/>`+"\n",
				cx, ry, cellW, svgCellH, fill)
			fmt.Fprintf(body, `<text class="off" x="%d" y="%d" text-anchor="middle">%d</text>`+"\n",
				cx+cellW/2, ry+svgCellH/2+4, offs[r*g.cols+c])
		}
	}
	return top + int(g.rows+v.drawRows)*svgCellH
}

// svgDocument wraps the body of a drawing w by h in an SVG document with its title, the
// hatch pattern of padding cells and a white background.
func svgDocument(w, h int, title string, body []byte) []byte {
	var out bytes.Buffer
	out.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&out, "<title>%s</title>\n", esc(title))
	out.WriteString(`<defs><pattern id="hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">` +
		`<rect width="6" height="6" fill="#f4f4f4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#aaa" stroke-width="2"/></pattern></defs>` + "\n")
	out.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	out.Write(body)
	out.WriteString("</svg>\n")
	return out.Bytes()
}

// tileColour picks a palette entry from a first-level tile index so that tiles next to
// each other along the two most minor tile dims differ: weights 1 and 2, modulo 4.
func tileColour(outer []int64) int {
	n := len(outer)
	v := int64(0)
	for i, o := range outer {
		switch n - 1 - i {
		case 0:
			v += o
		case 1:
			v += 2 * o
		default:
			v += o
		}
	}
	return int(v % int64(len(tilePalette)))
}

// paddedExtent is how far the first tile extends logical dim dim (of size n): n rounded
// up to the tile entry over it, or n when no tile entry covers it. A dim that the first
// tile combines with another (a `*` over it or before it) is drawn without edge padding (n).
func (g *Grid) paddedExtent(dim int, n int64) int64 {
	if dim < 0 || n == 0 {
		return n
	}
	e, ok := g.ix.FirstTileExtent(dim)
	if !ok {
		return n
	}
	return (n + e - 1) / e * e
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
