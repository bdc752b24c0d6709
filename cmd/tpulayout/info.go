package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

var infoVerb = &verb{
	name:     "info",
	synopsis: "SHAPE [--to tpu:GEN] [flags]",
	summary:  "sizes, physical order, tiles and expanded shapes of a layout",
	detail: `Info prints the element type, dims, physical order (minor_to_major), tiles, the
expanded shape after each stage of the layout, the logical and footprint sizes in
elements and bytes, and the share of the footprint that is padding. Then the
expansion factor (footprint / logical bytes), the generation's default layout and the
cheapest layouts for the dtype and dims on it (any two dims minor, any tile rows
Mosaic accepts), and whether the array can be copied from a row-major host array in
contiguous row blocks, and of what size. --gen picks the generation (default v5e);
--to tpu:GEN replaces SHAPE's layout with that generation's default and reports on it
(a note on stderr says so when SHAPE gave another layout than row-major, and another
when real TPU dumps leave the default a guess: SHAPE hlo:MODULE.txt:param=N takes the
layout the compiled program really uses).

With --json it prints one object with the keys shape, dtype, dims, minor_to_major,
physical_order, tiles (a combined dim is the string "*"), tail_padding, levels
(name and dims), element_bits, logical_elements, logical_bytes, footprint_elements,
footprint_bytes, padding_elements and padding_fraction, then expansion, generation,
default_layout, cheapest (shape, bytes, expansion, order, tile_rows, default) or
no_tpu_layout, and host_row_blocks (run, rows, pieces, identical, bytes, note).`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		to := fs.String("to", "", "report on the default layout of `tpu:GEN` for SHAPE's dtype and dims")
		gen := fs.String("gen", "", "the `GEN`eration for the default and cheapest layouts (default v5e)")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			// A sparse layout has no index math to report: say what it means instead.
			sh, perr := convert.ParseShape(pos[0])
			if perr == nil && sh.Kind == layout.Array && sh.Layout.IsSparse() && *to == "" {
				d, err := layout.DescribeSparse(sh)
				if err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(w, d)
				}
				return report.WriteSparseText(w, d)
			}
			ix, err := convert.CompileParsed(pos[0], sh, perr)
			if err != nil {
				return err
			}
			given := ix.Shape()
			ix, g, err := report.InfoTarget(ix, *to, *gen)
			if err != nil {
				return err
			}
			// A layout given in SHAPE and then replaced is easy to miss in the report.
			plain := layout.NewShape(given.DType, given.Dims...)
			if *to != "" && given.String() != plain.String() && given.String() != ix.Shape().String() {
				fmt.Fprintf(progressOut, "tpulayout info: note: --to %s replaced SHAPE's layout: %s is reported as %s\n", *to, given, ix.Shape())
			}
			if why := convert.Guess(*to, ix.Shape()); why != "" {
				fmt.Fprintf(progressOut, "tpulayout info: %s\n", convert.GuessLine(*to, ix.Shape(), why, "tpulayout info hlo:FILE:param=N"))
			}
			info := report.NewInfo(ix).AddInsight(g)
			if *asJSON {
				return writeJSON(w, info)
			}
			return info.WriteText(w)
		}
	},
}
