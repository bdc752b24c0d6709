package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/validate"
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
			if sh, err := parseShapeArg(pos[0]); err == nil && sh.Kind == layout.Array && sh.Layout.IsSparse() && *to == "" {
				d, err := layout.DescribeSparse(sh)
				if err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(w, d)
				}
				return printSparse(w, d)
			}
			ix, err := compileShape(pos[0])
			if err != nil {
				return err
			}
			given := ix.Shape()
			ix, g, err := infoTarget(ix, *to, *gen)
			if err != nil {
				return err
			}
			// A layout given in SHAPE and then replaced is easy to miss in the report.
			plain := layout.NewShape(given.DType, given.Dims...)
			if *to != "" && given.String() != plain.String() && given.String() != ix.Shape().String() {
				fmt.Fprintf(progressOut, "tpulayout info: note: --to %s replaced SHAPE's layout: %s is reported as %s\n", *to, given, ix.Shape())
			}
			if why := guessOf(*to, ix.Shape()); why != "" {
				fmt.Fprintf(progressOut, "tpulayout info: %s\n", guessLine(*to, ix.Shape(), why, "tpulayout info hlo:FILE:param=N"))
			}
			info := report.NewInfo(ix).AddInsight(g)
			if *asJSON {
				return writeJSON(w, info)
			}
			return printInfo(w, info)
		}
	},
}

// printInfo prints info's table, then the insight when the report has one.
func printInfo(w io.Writer, in *report.Info) error {
	ix := in.Indexer()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shape:\t%s\n", in.Shape)
	fmt.Fprintf(tw, "dtype:\t%s\n", in.DType)
	fmt.Fprintf(tw, "element size:\t%s\n", elementBitsNote(ix))
	fmt.Fprintf(tw, "dims:\t%s\n", fmtDims(in.Dims))
	fmt.Fprintf(tw, "minor_to_major:\t{%s}\n", joinInts(in.MinorToMajor))
	phys := ix.Levels()[0].Dims
	order := "none (scalar)"
	if len(in.PhysicalOrder) > 0 {
		order = fmt.Sprintf("%s, dims %s major to minor", fmtDims(phys), joinInts(in.PhysicalOrder))
	}
	fmt.Fprintf(tw, "physical order:\t%s\n", order)
	fmt.Fprintf(tw, "tiles:\t%s\n", tilesText(ix.Shape().Layout.Tiles))
	for i, lv := range in.Levels {
		label := ""
		if i == 0 {
			label = "expanded shape:"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", label, lv.Name, fmtDims(lv.Dims))
	}
	if in.TailPadding > 0 {
		last := int64(1)
		for _, d := range ix.Levels()[len(ix.Levels())-1].Dims {
			last *= d
		}
		fmt.Fprintf(tw, "tail padding:\tL(%d) rounds %d elements up to %d\n", in.TailPadding, last, in.FootprintElements)
	}
	fmt.Fprintf(tw, "logical:\t%s, %s\n", plural(in.LogicalElements, "element"), plural(in.LogicalBytes, "byte"))
	fmt.Fprintf(tw, "footprint:\t%s, %s\n", plural(in.FootprintElements, "element"), plural(in.FootprintBytes, "byte"))
	fmt.Fprintf(tw, "padding:\t%s, %s of the footprint\n", plural(in.PaddingElements, "element"), percent(in.PaddingFraction))
	if err := tw.Flush(); err != nil || in.Insight == nil {
		return err
	}
	return printInsight(w, in.Insight, ix)
}

// percent prints a fraction as a percentage with up to two decimals, more where they
// keep a fraction other than 0 or 1 from printing as 0% or 100%: "98.54%", "0.0004%".
func percent(f float64) string { return validate.Percent(f) }

// printSparse prints info's report on a sparse layout.
func printSparse(w io.Writer, d layout.SparseDescription) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shape:\t%s\n", d.Shape)
	fmt.Fprintf(tw, "layout:\t%s\n", d.Meaning)
	fmt.Fprintf(tw, "dim level types:\tD(%s), dims in order; physical order %s major to minor\n", strings.Join(d.DimLevelTypes, ","), joinInts(d.PhysicalOrder))
	fmt.Fprintf(tw, "logical elements:\t%d (dense count)\n", d.LogicalElements)
	fmt.Fprintf(tw, "footprint:\t%s\n", d.Footprint)
	fmt.Fprintf(tw, "note:\tsparse layouts are not supported by convert, show or explain\n")
	return tw.Flush()
}
