package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/report"
)

var explainVerb = &verb{
	name:     "explain",
	synopsis: "SHAPE INDEX | SHAPE --offset N [--json]",
	summary:  "where one element lives, or which element lives at an offset",
	detail: `Explain SHAPE INDEX prints where the element at the logical INDEX lives: its element
offset, its byte offset (and bit offset and bits, for widths that are not whole bytes),
its physical index, and at every tile level the index of its tile and its index within
the tile. INDEX is comma-separated, such as 2,3 or (2,3); a scalar's is '' or '()'.

Explain SHAPE --offset N prints which logical element lives at element offset N, or
that N is padding (within a tile, or tail padding from L(n)). N must lie within the
footprint.

With --json it prints one object: shape, offset, byte_offset, bit_offset, element_bits,
bit_in_byte, padding, index (absent for padding), physical_index, expanded_index,
expanded_dims, levels (tile, tile_index, tile_counts, within_tile, for each tile),
and for padding tail_padding and reason.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		offset := fs.String("offset", "", "explain the element offset `N` instead of an INDEX")
		return func(pos []string, w io.Writer) error {
			offsetSet := false
			fs.Visit(func(f *flag.Flag) { offsetSet = offsetSet || f.Name == "offset" })
			var ex *report.Explanation
			if offsetSet {
				if err := needArgs(pos, "SHAPE"); err != nil {
					if len(pos) > 1 {
						return usagef("give INDEX or --offset, not both")
					}
					return err
				}
				ix, err := compileShape(pos[0])
				if err != nil {
					return err
				}
				off, err := strconv.ParseInt(strings.TrimSpace(*offset), 10, 64)
				if err != nil {
					return fmt.Errorf("bad --offset %q: not a number", *offset)
				}
				if ex, err = report.ExplainOffset(ix, off); err != nil {
					return errors.New("--" + report.ErrorText(err)) // "offset N is outside …"
				}
			} else {
				if err := needArgs(pos, "SHAPE", "INDEX (or --offset N)"); err != nil {
					return err
				}
				ix, err := compileShape(pos[0])
				if err != nil {
					return err
				}
				idx, err := parseIndex(pos[1], ix.Dims())
				if err != nil {
					return err
				}
				if ex, err = report.ExplainIndex(ix, idx); err != nil {
					return err
				}
			}
			if *asJSON {
				return writeJSON(w, ex)
			}
			return printExplanation(w, ex)
		}
	},
}

func printExplanation(w io.Writer, ex *report.Explanation) error {
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
		fmt.Fprintf(tw, "%s index:\t%s in %s\n", pl.Name, fmtIndex(ex.PhysicalIndex), fmtDims(pl.Dims))
	}
	for i, l := range ex.Levels {
		fmt.Fprintf(tw, "tile level T%s:\ttile %s of %s, within tile %s\n",
			ex.Tile(i), fmtIndex(l.TileIndex), fmtDims(l.TileCounts), fmtIndex(l.WithinTile))
	}
	if ex.ExpandedIndex != nil {
		fmt.Fprintf(tw, "expanded index:\t%s in %s; the offset is row-major over it\n",
			fmtIndex(ex.ExpandedIndex), fmtDims(ex.ExpandedDims))
	}
	if ex.Reason != "" {
		fmt.Fprintf(tw, "why:\t%s\n", ex.Reason)
	}
	return tw.Flush()
}
