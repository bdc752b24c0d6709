package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// infoTarget applies info's --to and --gen: --to tpu:GEN replaces the layout with the
// generation's default for the shape's dtype and dims (and sets the generation).
func infoTarget(ix *layout.Indexer, to, genText string) (*layout.Indexer, tpu.Generation, error) {
	gen := tpu.DefaultGeneration
	if genText != "" {
		g, err := tpu.ParseGeneration(genText)
		if err != nil {
			return nil, 0, usagef("bad --gen %q: %s", genText, cleanErr(err))
		}
		gen = g
	}
	if to == "" {
		return ix, gen, nil
	}
	g, ok := strings.CutPrefix(to, "tpu:")
	if !ok {
		return nil, 0, usagef("info --to takes tpu:GEN (such as tpu:v5e), not %q", to)
	}
	tg, err := tpu.ParseGeneration(g)
	if err != nil {
		return nil, 0, usagef("bad --to %q: %s", to, cleanErr(err))
	}
	if genText != "" && tg != gen {
		return nil, 0, usagef("--to %s and --gen %s disagree", to, genText)
	}
	s := ix.Shape()
	ds, err := tpu.DefaultShape(tg, s.DType, s.Dims)
	if err != nil {
		return nil, 0, fmt.Errorf("no default %s layout for %s: %s", tg, layout.NewShape(s.DType, s.Dims...), cleanErr(err))
	}
	nix, err := layout.Compile(ds)
	if err != nil {
		return nil, 0, fmt.Errorf("default %s layout %s: %s", tg, ds, cleanErr(err))
	}
	return nix, tg, nil
}

// orderText describes a physical order: "dims 1,0,2 major to minor".
func orderText(order []int) string {
	if len(order) == 0 {
		return "scalar"
	}
	return "dims " + joinInts(order) + " major to minor"
}

// printInsight writes the insight lines after info's table, aligned among themselves.
func printInsight(out io.Writer, in *report.Insight, ix *layout.Indexer) error {
	// minwidth 17 lines the values up with info's table, whose labels are 15 wide.
	w := tabwriter.NewWriter(out, 17, 0, 2, ' ', 0)
	if ix.LogicalElements() == 0 {
		fmt.Fprintf(w, "expansion:\tnone: the array is empty\n")
		return w.Flush()
	}
	fmt.Fprintf(w, "expansion:\t%s (footprint / logical bytes)\n", factor(in.Expansion))
	g := in.Generation
	if in.NoTPU != "" {
		fmt.Fprintf(w, "%s:\tno TPU layout: %s\n", g, in.NoTPU)
	} else {
		cur := ix.Shape().String()
		if d := in.Default; d != nil {
			note := ""
			if d.Shape.String() == cur {
				note = " (this layout)"
			}
			fmt.Fprintf(w, "default (%s):\t%s, %s, %s%s\n", g, d.Shape, plural(d.Bytes, "byte"), factor(d.Expansion), note)
		}
		for i, a := range in.Cheapest {
			label := ""
			if i == 0 {
				label = "cheapest (" + g + "):"
			}
			note := ""
			switch {
			case a.Shape.String() == cur:
				note = " (this layout)"
			case a.Default:
				note = " (the default)"
			}
			fmt.Fprintf(w, "%s\t%s, %s, %s, %s%s\n", label, a.Shape, plural(a.Bytes, "byte"), factor(a.Expansion), orderText(a.Order), note)
		}
	}
	rb := in.RowBlocks
	size := ""
	switch {
	case rb.Identical:
		size = fmt.Sprintf(" of %s bytes", trimFloat(rb.Bytes))
	case rb.Rows > 0:
		size = fmt.Sprintf(": %s, %s bytes, contiguous in both; %s", plural(rb.Run, "element"), trimFloat(rb.Bytes), plural(rb.Pieces, "block"))
	case rb.Run > 1:
		size = fmt.Sprintf(": %s, %s bytes from each row's start, contiguous in both (a row's last piece may be shorter); %s",
			plural(rb.Run, "element"), trimFloat(rb.Bytes), plural(rb.Pieces, "piece"))
	}
	fmt.Fprintf(w, "row blocks:\t%s%s\n", rb.Note, size)
	return w.Flush()
}

// trimFloat prints a byte count that may be fractional (sub-byte elements).
func trimFloat(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}
