package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

const (
	defaultMaxSide   = 64 // rows and columns per slice
	defaultMaxSlices = 16
)

var showVerb = &verb{
	name:     "show",
	synopsis: "SHAPE [--rows A:B --cols C:D] [--svg FILE]",
	summary:  "the grid of element offsets, in the terminal or as an SVG figure",
	detail: `Show prints the element offset of every logical element as a grid: rows are the
second-minor logical dim and columns the minor one. Arrays of rank 3 and more print one
grid per 2-D slice, each under a header such as [1,:,:]; rank 0 and 1 print one row.
Grids larger than --max rows or columns, or more than --max-slices slices, are refused.
--rows A:B and --cols C:D show a window of a large array instead: rows A up to but not
including B, columns C to D (like a Python slice; "A:" runs to the end).

--svg FILE also draws the figure as SVG: one cell per element with its offset, coloured
by its first-level tile, with the tile padding past the array's edges hatched and a note
of how many padding elements the footprint holds. The file is replaced atomically;
FILE '-' writes the SVG to stdout instead of the grid.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		svgFile := fs.String("svg", "", "also write the figure as SVG to `FILE` ('-': stdout, instead of the grid)")
		maxSide := fs.Int64("max", defaultMaxSide, "show at most `N` rows and N columns per slice")
		maxSlices := fs.Int64("max-slices", defaultMaxSlices, "show at most `N` slices")
		rows := fs.String("rows", "", "show only rows `A:B` (of the second-minor dim)")
		cols := fs.String("cols", "", "show only columns `C:D` (of the minor dim)")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			if *maxSide < 1 || *maxSlices < 1 {
				return usagef("--max and --max-slices must be at least 1")
			}
			svgSet := false
			fs.Visit(func(f *flag.Flag) { svgSet = svgSet || f.Name == "svg" })
			if svgSet && *svgFile == "" { // was ignored: the grid printed, no SVG, exit 0
				return usagef("--svg FILE is empty: name a file, or - for standard output")
			}
			ix, err := compileShape(pos[0])
			if err != nil {
				return err
			}
			g, err := newGrid(ix, *maxSide, *maxSlices, *rows, *cols, *svgFile != "")
			if err != nil {
				return err
			}
			if isStdout(*svgFile) {
				_, err := w.Write(g.svg())
				return err
			}
			if *svgFile != "" {
				if err := writeFileAtomic(*svgFile, g.svg()); err != nil {
					return fmt.Errorf("writing the SVG %s: %s", *svgFile, fileErr(err)) // not the temporary file's name
				}
			}
			g.print(w)
			return nil
		}
	},
}

// grid is the 2-D view of an array: the slices over the leading logical dims, each a
// rows × cols grid over the two minor logical dims.
type grid struct {
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

func newGrid(ix *layout.Indexer, maxSide, maxSlices int64, rowsText, colsText string, svg bool) (*grid, error) {
	dims := ix.Dims()
	rank := len(dims)
	g := &grid{ix: ix, rank: rank, rowDim: rank - 2, colDim: rank - 1, rows: 1, cols: 1}
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
	if g.rowsWin, err = parseWindow("--rows", rowsText, g.rowDim, g.rows, "rows", rank); err != nil {
		return nil, err
	}
	if g.colsWin, err = parseWindow("--cols", colsText, g.colDim, g.cols, "columns", rank); err != nil {
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
			return nil, fmt.Errorf("%s has %d elements in one row, more than the limit of %d; raise --max to show it, or show a window with --cols C:D",
				ix.Shape(), g.cols, maxSide)
		}
		what := fmt.Sprintf("%d rows × %d columns", g.rows, g.cols)
		if rank > 2 {
			what += " per slice"
		}
		if g.rowsWin.text != "" || g.colsWin.text != "" {
			what = "a window of " + what
		}
		return nil, fmt.Errorf("%s has %s, more than the limit of %d; raise --max to show it, or show a window with --rows A:B --cols C:D",
			ix.Shape(), what, maxSide)
	}
	if nslices > maxSlices {
		return nil, fmt.Errorf("%s has more than %d slices over dims %s; raise --max-slices to show them",
			ix.Shape(), maxSlices, fmtDims(lead))
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
func (g *grid) index(lead []int64, r, c int64) []int64 {
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
func (g *grid) sliceHeader(lead []int64) string {
	return "[" + joinInts(lead) + ",:,:]"
}

// caption says what the rows and columns are, and which window of them is shown.
func (g *grid) caption() string {
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

func (g *grid) fullCaption() string {
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
func (g *grid) paddingNote() string {
	ix := g.ix
	pad := ix.FootprintElements() - ix.LogicalElements()
	if pad == 0 {
		return fmt.Sprintf("footprint: %s, no padding", plural(ix.FootprintElements(), "element"))
	}
	return fmt.Sprintf("footprint: %s, %d logical and %d padding (%s)",
		plural(ix.FootprintElements(), "element"), ix.LogicalElements(), pad, percent(ix.PaddingFraction()))
}

func (g *grid) print(w io.Writer) {
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
	defer b.Flush()
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
}
