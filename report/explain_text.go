package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText prints the explanation as the tpulayout command's explain does.
func (ex *Explanation) WriteText(w io.Writer) error {
	ix := ex.Indexer()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shape:\t%s\n", ex.Shape)
	switch {
	case ex.TailPadding:
		fmt.Fprintf(tw, "offset:\t%d is tail padding: no logical element lives there\n", ex.Offset)
	case ex.Padding:
		fmt.Fprintf(tw, "offset:\t%d is padding: no logical element lives there\n", ex.Offset)
	default:
		fmt.Fprintf(tw, "index:\t%s\n", fmtIndex(*ex.Index))
		fmt.Fprintf(tw, "offset:\t%d (elements)\n", ex.Offset)
	}
	bits := int64(ex.ElementBits)
	fmt.Fprintf(tw, "element size:\t%s\n", elementBitsNote(ix))
	if bits%8 == 0 {
		fmt.Fprintf(tw, "byte offset:\t%d (bytes %d..%d)\n", ex.ByteOffset, ex.ByteOffset, ex.ByteOffset+bits/8-1)
	} else {
		fmt.Fprintf(tw, "bit offset:\t%d\n", ex.BitOffset)
		end := ex.BitOffset + bits - 1
		if end/8 == ex.ByteOffset {
			fmt.Fprintf(tw, "byte offset:\t%d, bits %d..%d of it (bytes fill least-significant bit first)\n",
				ex.ByteOffset, ex.BitInByte, ex.BitInByte+bits-1)
		} else {
			fmt.Fprintf(tw, "byte offset:\t%d, from bit %d, through byte %d (bytes fill least-significant bit first)\n",
				ex.ByteOffset, ex.BitInByte, end/8)
		}
	}
	if ex.PhysicalIndex != nil {
		lv := ix.Levels()
		pl := lv[0]
		if len(lv) > 1 && lv[1].Name == "combined" {
			pl = lv[1]
		}
		fmt.Fprintf(tw, "%s index:\t%s in %s\n", pl.Name, fmtIndex(ex.PhysicalIndex), DimsText(pl.Dims))
	}
	for i, l := range ex.Levels {
		fmt.Fprintf(tw, "tile level T%s:\ttile %s of %s, within tile %s\n",
			ex.Tile(i), fmtIndex(l.TileIndex), DimsText(l.TileCounts), fmtIndex(l.WithinTile))
	}
	if ex.ExpandedIndex != nil {
		fmt.Fprintf(tw, "expanded index:\t%s in %s; the offset is row-major over it\n",
			fmtIndex(ex.ExpandedIndex), DimsText(ex.ExpandedDims))
	}
	if ex.Reason != "" {
		fmt.Fprintf(tw, "why:\t%s\n", ex.Reason)
	}
	return tw.Flush()
}
