package main

import (
	"flag"
	"fmt"
	"github.com/tpulayout/tpulayout/internal/edgetext"
	"io"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/report"
)

// showWords names show's flags in the grid's messages.
var showWords = report.GridWords{MaxSide: "--max", MaxSlices: "--max-slices", Rows: "--rows", Cols: "--cols"}

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
		maxSide := fs.Int64("max", report.DefaultMaxSide, "show at most `N` rows and N columns per slice")
		maxSlices := fs.Int64("max-slices", report.DefaultMaxSlices, "show at most `N` slices")
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
			ix, err := convert.CompileShape(pos[0])
			if err != nil {
				return err
			}
			g, err := report.NewGrid(ix, report.GridOptions{MaxSide: *maxSide, MaxSlices: *maxSlices,
				Rows: *rows, Cols: *cols, SVG: *svgFile != "", Words: showWords})
			if err != nil {
				return err
			}
			if convert.IsStdout(*svgFile) {
				_, err := w.Write(g.SVG())
				return err
			}
			if *svgFile != "" {
				if err := writeFileAtomic(*svgFile, g.SVG()); err != nil {
					return fmt.Errorf("writing the SVG %s: %s", *svgFile, edgetext.Cause(err, nil)) // not the temporary file's name
				}
			}
			return g.WriteText(w)
		}
	},
}

// writeFileAtomic writes data as convert writes OUT (convert.Job.WriteOutput): a failure leaves
// no partial file, and an existing file (or a symlink's target) is replaced only when
// the new one is complete; a device or a FIFO is written in place.
func writeFileAtomic(path string, data []byte) error {
	return newJob("", path).WriteOutput(func(w convert.ImageWriter) error {
		_, err := w.Write(data)
		return err
	})
}
