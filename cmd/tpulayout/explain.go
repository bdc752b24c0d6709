package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/layout"
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
			var ex *explanation
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
				if ex, err = explainOffset(ix, *offset); err != nil {
					return err
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
				ex = explainIndex(ix, idx)
			}
			if *asJSON {
				return writeJSON(w, ex)
			}
			return ex.print(w)
		}
	},
}

type explainLevelJSON struct {
	Tile       []any   `json:"tile"`
	TileIndex  []int64 `json:"tile_index"`  // index of the tile among the tile counts (and leading dims)
	TileCounts []int64 `json:"tile_counts"` // the dims TileIndex ranges over
	WithinTile []int64 `json:"within_tile"`
}

type explanation struct {
	Shape         string             `json:"shape"`
	Index         *[]int64           `json:"index,omitempty"` // absent for padding
	Padding       bool               `json:"padding"`
	TailPadding   bool               `json:"tail_padding,omitempty"` // padding from L(n), past the expanded shape
	Offset        int64              `json:"offset"`                 // in elements
	ByteOffset    int64              `json:"byte_offset"`
	BitOffset     int64              `json:"bit_offset"`
	BitInByte     int64              `json:"bit_in_byte"`
	ElementBits   int                `json:"element_bits"`
	PhysicalIndex []int64            `json:"physical_index,omitempty"`
	ExpandedIndex []int64            `json:"expanded_index,omitempty"`
	ExpandedDims  []int64            `json:"expanded_dims"`
	Levels        []explainLevelJSON `json:"levels"`
	Reason        string             `json:"reason,omitempty"` // for padding: which tile pads what

	ix    *layout.Indexer
	tiles []layout.Tile // the tile of each level, as applied
}

func newExplanation(ix *layout.Indexer, off int64) *explanation {
	bits := int64(ix.ElementBits())
	lv := ix.Levels()
	return &explanation{
		Shape:        ix.Shape().String(),
		Offset:       off,
		ByteOffset:   off * bits / 8,
		BitOffset:    off * bits,
		BitInByte:    off * bits % 8,
		ElementBits:  int(bits),
		ExpandedDims: nonNil(lv[len(lv)-1].Dims),
		Levels:       []explainLevelJSON{},
		ix:           ix,
	}
}

func explainIndex(ix *layout.Indexer, idx []int64) *explanation {
	ex := newExplanation(ix, ix.Offset(idx))
	ex.Index = &idx
	lv := ix.Levels()
	nbase := len(lv[0].Dims)
	if len(lv) > 1 && lv[1].Name == "combined" {
		nbase = len(lv[1].Dims)
	}
	ex.PhysicalIndex = make([]int64, nbase)
	for b := range ex.PhysicalIndex {
		ex.PhysicalIndex[b] = ix.BaseValue(b, idx)
	}
	ds := ix.Digits()
	ex.ExpandedIndex = make([]int64, len(ds))
	for j := range ds {
		ex.ExpandedIndex[j] = ds[j].Eval(ix.BaseValue(ds[j].Base, idx))
	}
	tl := tileLevels(ix)
	for i, t := range ix.Explain(idx) {
		ex.tiles = append(ex.tiles, t.Tile)
		ex.Levels = append(ex.Levels, explainLevelJSON{
			Tile:       t.Tile.Values(),
			TileIndex:  nonNil(t.Outer),
			TileCounts: nonNil(tl[i].Dims[:len(t.Outer)]),
			WithinTile: t.Within,
		})
	}
	return ex
}

func explainOffset(ix *layout.Indexer, text string) (*explanation, error) {
	off, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("bad --offset %q: not a number", text)
	}
	if ix.FootprintElements() == 0 {
		return nil, fmt.Errorf("--offset %d: %s has an empty footprint", off, ix.Shape())
	}
	if off < 0 || off >= ix.FootprintElements() {
		return nil, fmt.Errorf("--offset %d is outside the footprint of %s: offsets run from 0 to %d",
			off, ix.Shape(), ix.FootprintElements()-1)
	}
	idx := make([]int64, ix.Rank())
	if ix.Index(off, idx) {
		return explainIndex(ix, idx), nil
	}
	ex := newExplanation(ix, off)
	ex.Padding = true
	expanded := ix.ExpandedElements()
	if off >= expanded {
		ex.TailPadding = true
		ex.Reason = fmt.Sprintf("L(%d) rounds the %d elements of the expanded shape up to %d",
			ix.Shape().Layout.TailPadding, expanded, ix.FootprintElements())
		return ex, nil
	}
	ds := ix.Digits()
	ex.ExpandedIndex = make([]int64, len(ds))
	for j, d := range ds {
		ex.ExpandedIndex[j] = off / d.Stride % d.Size
	}
	ex.Reason = paddingReason(ix, ex.ExpandedIndex)
	return ex, nil
}

// appliedTiles returns the tiles as the index math applies them: the first without its
// combined '*' dims (they are merged before tiling).
func appliedTiles(ix *layout.Indexer) []layout.Tile {
	ts := append([]layout.Tile(nil), ix.Shape().Layout.Tiles...)
	if len(ts) > 0 {
		var t layout.Tile
		for _, d := range ts[0] {
			if d != layout.Combined {
				t = append(t, d)
			}
		}
		ts[0] = t
	}
	return ts
}

// paddingReason undoes the tiles, last first, from an index into the expanded shape that
// holds no element, and says which tile level padded which dim.
func paddingReason(ix *layout.Indexer, expandedIdx []int64) string {
	tiles := appliedTiles(ix)
	lv := ix.Levels()
	base := len(lv) - len(tiles)
	work := append([]int64(nil), expandedIdx...)
	for s := len(tiles) - 1; s >= 0; s-- {
		t := tiles[s]
		k := len(t)
		before := lv[base+s-1]
		dims := before.Dims
		for len(dims) < k {
			dims = append([]int64{1}, dims...)
		}
		m := len(dims)
		for i := range k {
			v := work[m-k+i]*t[i] + work[m+i]
			if d := dims[m-k+i]; v >= d {
				return fmt.Sprintf("tile T%s rounds dim %d of the %s shape %s up from %d to %d; this offset is at position %d of it",
					t, m-k+i, before.Name, fmtDims(dims), d, (d+t[i]-1)/t[i]*t[i], v)
			}
			work[m-k+i] = v
		}
		work = work[:m]
	}
	return "the offset decodes to no logical element"
}

func (ex *explanation) print(w io.Writer) error {
	ix := ex.ix
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
			ex.tiles[i], fmtIndex(l.TileIndex), fmtDims(l.TileCounts), fmtIndex(l.WithinTile))
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
