package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/tpulayout/tpulayout/internal/edgetext"
	"io"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
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
				ix, err := convert.CompileShape(pos[0])
				if err != nil {
					return err
				}
				off, err := strconv.ParseInt(strings.TrimSpace(*offset), 10, 64)
				if err != nil {
					return fmt.Errorf("bad --offset %q: not a number", *offset)
				}
				if ex, err = report.ExplainOffset(ix, off); err != nil {
					return errors.New("--" + edgetext.Clean(err)) // "offset N is outside …"
				}
			} else {
				if err := needArgs(pos, "SHAPE", "INDEX (or --offset N)"); err != nil {
					return err
				}
				ix, err := convert.CompileShape(pos[0])
				if err != nil {
					return err
				}
				idx, err := report.ParseIndex(pos[1], ix.Dims())
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
			return ex.WriteText(w)
		}
	},
}
