package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// The grid of element offsets that the tpulayout command's show prints, as text or
// as an SVG figure.

// Grid is the 2-D view of an array: the slices over the leading logical dims, each a
// rows × cols grid over the two minor logical dims.
type Grid struct {
	ix         *layout.Indexer
	rank       int
	rowDim     int   // logical dim of the rows, or -1 (rank < 2: one row)
	colDim     int   // logical dim of the columns, or -1 (scalar: one column)
	rows, cols int64 // shown: the window's
	r0, c0     int64 // the window's first row and column
	rowsWin    window
	colsWin    window
	fullRows   int64 // the array's rows and columns
	fullCols   int64
	slices     [][]int64 // leading index of each slice
	offsets    [][]int64 // per slice, row-major rows × cols
}

// Slices returns the leading index of each slice shown.
func (g *Grid) Slices() [][]int64 { return g.slices }

// Offsets returns the element offsets of each slice, row-major over the shown rows ×
// columns.
func (g *Grid) Offsets() [][]int64 { return g.offsets }

// Size returns the rows and columns shown per slice.
func (g *Grid) Size() (rows, cols int64) { return g.rows, g.cols }

// GridOptions bound a Grid and pick the window of it shown. Zero fields take the defaults.
type GridOptions struct {
	MaxSide   int64  // rows and columns per slice at most; default 64
	MaxSlices int64  // slices at most; default 16
	Rows      string // "A:B": rows A up to B of the second-minor dim, like a Python slice ("" all)
	Cols      string // "C:D": columns of the minor dim
	SVG       bool   // the grid is drawn as SVG, which holds fewer cells (MaxSVGCells)
	// Words name the settings in messages; default the field names.
	Words GridWords
}

// GridWords are the words messages use for GridOptions' fields (a command's flags).
type GridWords struct{ MaxSide, MaxSlices, Rows, Cols string }

// Defaults of GridOptions.
const (
	DefaultMaxSide   = 64
	DefaultMaxSlices = 16
)

// NewGrid computes the element offset of every shown element of ix's array. Errors
// are *SettingError for a bad window, and plain errors for a grid beyond the limits.
func NewGrid(ix *layout.Indexer, o GridOptions) (*Grid, error) {
	if o.MaxSide <= 0 {
		o.MaxSide = DefaultMaxSide
	}
	if o.MaxSlices <= 0 {
		o.MaxSlices = DefaultMaxSlices
	}
	if o.Words == (GridWords{}) {
		o.Words = GridWords{MaxSide: "MaxSide", MaxSlices: "MaxSlices", Rows: "Rows", Cols: "Cols"}
	}
	maxSide, maxSlices, rowsText, colsText, svg := o.MaxSide, o.MaxSlices, o.Rows, o.Cols, o.SVG
	dims := ix.Dims()
	rank := len(dims)
	g := &Grid{ix: ix, rank: rank, rowDim: rank - 2, colDim: rank - 1, rows: 1, cols: 1}
	if rank >= 2 {
		g.rows = dims[rank-2]
	}
	if rank >= 1 {
		g.cols = dims[rank-1]
	}
	if g.rowDim < 0 {
		g.rowDim = -1
	}
	g.fullRows, g.fullCols = g.rows, g.cols
	var err error
	if g.rowsWin, err = parseWindow(o.Words.Rows, rowsText, g.rowDim, g.rows, "rows", rank); err != nil {
		return nil, err
	}
	if g.colsWin, err = parseWindow(o.Words.Cols, colsText, g.colDim, g.cols, "columns", rank); err != nil {
		return nil, err
	}
	g.r0, g.rows = g.rowsWin.lo, g.rowsWin.hi-g.rowsWin.lo
	g.c0, g.cols = g.colsWin.lo, g.colsWin.hi-g.colsWin.lo
	lead := dims[:max(rank-2, 0)]
	nslices := int64(1)
	for _, d := range lead {
		if d == 0 {
			nslices = 0
			break
		}
		if nslices > maxSlices || d > maxSlices {
			nslices = maxSlices + 1 // saturate; the exact count does not matter
		} else {
			nslices *= d
		}
	}
	if g.rows > maxSide || g.cols > maxSide {
		if rank < 2 {
			return nil, fmt.Errorf("%s has %d elements in one row, more than the limit of %d; raise %s to show it, or show a window with %s C:D",
				ix.Shape(), g.cols, maxSide, o.Words.MaxSide, o.Words.Cols)
		}
		what := fmt.Sprintf("%d rows × %d columns", g.rows, g.cols)
		if rank > 2 {
			what += " per slice"
		}
		if g.rowsWin.text != "" || g.colsWin.text != "" {
			what = "a window of " + what
		}
		return nil, fmt.Errorf("%s has %s, more than the limit of %d; raise %s to show it, or show a window with %s A:B %s C:D",
			ix.Shape(), what, maxSide, o.Words.MaxSide, o.Words.Rows, o.Words.Cols)
	}
	if nslices > maxSlices {
		return nil, fmt.Errorf("%s has more than %d slices over dims %s; raise %s to show them",
			ix.Shape(), maxSlices, "["+joinInts(lead)+"]", o.Words.MaxSlices)
	}
	if nslices == 0 || g.rows == 0 || g.cols == 0 {
		return g, nil
	}
	if err := checkShowCells(layout.Quote(ix.Shape().String()), satMul(satMul(nslices, g.rows), g.cols), svg); err != nil {
		return nil, err
	}
	li := make([]int64, len(lead))
	for {
		g.slices = append(g.slices, append([]int64(nil), li...))
		offs := make([]int64, 0, g.rows*g.cols)
		for r := range g.rows {
			for c := range g.cols {
				offs = append(offs, ix.Offset(g.index(li, r, c)))
			}
		}
		g.offsets = append(g.offsets, offs)
		if !layout.NextIndex(li, lead) {
			break
		}
	}
	return g, nil
}

// index is the logical index of row r, column c of the slice at leading index lead.
func (g *Grid) index(lead []int64, r, c int64) []int64 {
	idx := append(make([]int64, 0, g.rank), lead...)
	if g.rank >= 2 {
		idx = append(idx, g.r0+r)
	}
	if g.rank >= 1 {
		idx = append(idx, g.c0+c)
	}
	return idx
}

// sliceHeader names a slice like [1,:,:].
func (g *Grid) sliceHeader(lead []int64) string {
	return "[" + joinInts(lead) + ",:,:]"
}

// caption says what the rows and columns are, and which window of them is shown.
func (g *Grid) caption() string {
	c := g.fullCaption()
	var win []string
	if g.rowsWin.text != "" {
		win = append(win, g.rowsWin.describe("rows", g.rowDim))
	}
	if g.colsWin.text != "" {
		win = append(win, g.colsWin.describe("columns", g.colDim))
	}
	if len(win) > 0 {
		c += "; showing " + strings.Join(win, ", ")
	}
	return c
}

func (g *Grid) fullCaption() string {
	switch g.rank {
	case 0:
		return "the scalar's element offset"
	case 1:
		return "element offsets, one row over dim 0"
	case 2:
		return "element offsets, rows: dim 0, columns: dim 1"
	}
	lead := "dim 0"
	if g.rank > 3 {
		lead = fmt.Sprintf("dims 0..%d", g.rank-3)
	}
	return fmt.Sprintf("element offsets, rows: dim %d, columns: dim %d, one grid per index of %s",
		g.rowDim, g.colDim, lead)
}

// paddingNote says how many padding elements the footprint holds.
func (g *Grid) paddingNote() string {
	ix := g.ix
	pad := ix.FootprintElements() - ix.LogicalElements()
	if pad == 0 {
		return fmt.Sprintf("footprint: %s, no padding", Plural(ix.FootprintElements(), "element"))
	}
	return fmt.Sprintf("footprint: %s, %d logical and %d padding (%s)",
		Plural(ix.FootprintElements(), "element"), ix.LogicalElements(), pad, tpu.Percent(ix.PaddingFraction()))
}

func (g *Grid) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s\n", g.ix.Shape(), g.caption())
	if len(g.offsets) == 0 {
		fmt.Fprintf(w, "(no elements)\n")
	}
	width := 1
	for _, offs := range g.offsets {
		for _, o := range offs {
			width = max(width, len(strconv.FormatInt(o, 10)))
		}
	}
	b := bufio.NewWriter(w) // written as it goes: a grid can be millions of cells
	for s, offs := range g.offsets {
		if g.rank > 2 {
			if s > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(g.sliceHeader(g.slices[s]) + "\n")
		}
		for r := range g.rows {
			for c := range g.cols {
				if c > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(b, "%*d", width, offs[r*g.cols+c])
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(b, "%s\n", g.paddingNote())
	return b.Flush()
}

// The work show does is bounded whatever --max and --max-slices say: every shown
// element's offset is computed and printed, and an SVG holds about 100 bytes per cell.
const (
	MaxShowCells = 1 << 22
	MaxSVGCells  = 1 << 18
)

// checkShowCells fails when show would draw more than it handles.
func checkShowCells(shape string, cells int64, svg bool) error {
	limit, what := int64(MaxShowCells), "show prints at most"
	if svg {
		limit, what = MaxSVGCells, "an SVG figure holds at most"
	}
	if cells > limit {
		return fmt.Errorf("%s has %d elements to show, but %s %d; show a smaller shape", shape, cells, what, limit)
	}
	return nil
}

// satMul is a*b for non-negative numbers, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
