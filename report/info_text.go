package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// WriteText prints the report as the tpulayout command's info does: a table, then
// the insight when the report has one.
func (in *Info) WriteText(w io.Writer) error {
	ix := in.Indexer()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shape:\t%s\n", in.Shape)
	fmt.Fprintf(tw, "dtype:\t%s\n", in.DType)
	fmt.Fprintf(tw, "element size:\t%s\n", elementBitsNote(ix))
	fmt.Fprintf(tw, "dims:\t%s\n", DimsText(in.Dims))
	fmt.Fprintf(tw, "minor_to_major:\t{%s}\n", joinInts(in.MinorToMajor))
	phys := ix.Levels()[0].Dims
	order := "none (scalar)"
	if len(in.PhysicalOrder) > 0 {
		order = fmt.Sprintf("%s, dims %s major to minor", DimsText(phys), joinInts(in.PhysicalOrder))
	}
	fmt.Fprintf(tw, "physical order:\t%s\n", order)
	fmt.Fprintf(tw, "tiles:\t%s\n", tilesText(ix.Shape().Layout.Tiles))
	for i, lv := range in.Levels {
		label := ""
		if i == 0 {
			label = "expanded shape:"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", label, lv.Name, DimsText(lv.Dims))
	}
	if in.TailPadding > 0 && len(in.Tiles) == 0 {
		fmt.Fprintf(tw, "tail padding:\tL(%d) not applied: XLA pads to L(n) a tiled layout only\n", in.TailPadding)
	} else if in.TailPadding > 0 {
		last := int64(1)
		for _, d := range ix.Levels()[len(ix.Levels())-1].Dims {
			last *= d
		}
		fmt.Fprintf(tw, "tail padding:\tL(%d) rounds %d elements up to %d\n", in.TailPadding, last, in.FootprintElements)
	}
	fmt.Fprintf(tw, "logical:\t%s, %s\n", Plural(in.LogicalElements, "element"), Plural(in.LogicalBytes, "byte"))
	fmt.Fprintf(tw, "footprint:\t%s, %s\n", Plural(in.FootprintElements, "element"), Plural(in.FootprintBytes, "byte"))
	if in.XLAArraySizeBytes > 0 {
		fmt.Fprintf(tw, "XLA ArraySize:\t%s: from the first tile alone; a later tile that does not divide the one above pads more, and the footprint above holds every element's offset\n", Plural(in.XLAArraySizeBytes, "byte"))
	}
	fmt.Fprintf(tw, "padding:\t%s, %s of the footprint\n", Plural(in.PaddingElements, "element"), percent(in.PaddingFraction))
	if err := tw.Flush(); err != nil || in.Insight == nil {
		return err
	}
	return in.Insight.writeText(w, ix)
}

// percent prints a fraction as a percentage with up to two decimals, more where they
// keep a fraction other than 0 or 1 from printing as 0% or 100%: "98.54%", "0.0004%".
func percent(f float64) string { return tpu.Percent(f) }

// WriteSparseText prints the description of a sparse layout as the command's info does.
func WriteSparseText(w io.Writer, d layout.SparseDescription) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shape:\t%s\n", d.Shape)
	fmt.Fprintf(tw, "layout:\t%s\n", d.Meaning)
	fmt.Fprintf(tw, "dim level types:\tD(%s), dims in order; physical order %s major to minor\n", strings.Join(d.DimLevelTypes, ","), joinInts(d.PhysicalOrder))
	fmt.Fprintf(tw, "logical elements:\t%d (dense count)\n", d.LogicalElements)
	fmt.Fprintf(tw, "footprint:\t%s\n", d.Footprint)
	fmt.Fprintf(tw, "note:\tsparse layouts are not supported by convert, show or explain\n")
	return tw.Flush()
}

// orderText describes a physical order: "dims 1,0,2 major to minor".
func orderText(order []int) string {
	if len(order) == 0 {
		return "scalar"
	}
	return "dims " + joinInts(order) + " major to minor"
}

// writeText writes the insight lines after info's table, aligned among themselves.
func (in *Insight) writeText(out io.Writer, ix *layout.Indexer) error {
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
			fmt.Fprintf(w, "default (%s):\t%s, %s, %s%s\n", g, d.Shape, Plural(d.Bytes, "byte"), factor(d.Expansion), note)
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
			fmt.Fprintf(w, "%s\t%s, %s, %s, %s%s\n", label, a.Shape, Plural(a.Bytes, "byte"), factor(a.Expansion), orderText(a.Order), note)
		}
	}
	rb := in.RowBlocks
	size := ""
	switch {
	case rb.Identical:
		size = fmt.Sprintf(" of %s bytes", trimFloat(rb.Bytes))
	case rb.Rows > 0:
		size = fmt.Sprintf(": %s, %s bytes, contiguous in both; %s", Plural(rb.Run, "element"), trimFloat(rb.Bytes), Plural(rb.Pieces, "block"))
	case rb.Run > 1:
		size = fmt.Sprintf(": %s, %s bytes from each row's start, contiguous in both (a row's last piece may be shorter); %s",
			Plural(rb.Run, "element"), trimFloat(rb.Bytes), Plural(rb.Pieces, "piece"))
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
