package report

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// Explanation is `tpulayout explain --json`: where the element at a logical index
// lives, or what lives at an element offset.
type Explanation struct {
	Shape         string         `json:"shape"`
	Index         *[]int64       `json:"index,omitempty"` // absent for padding
	Padding       bool           `json:"padding"`
	TailPadding   bool           `json:"tail_padding,omitempty"` // padding from L(n), past the expanded shape
	Offset        int64          `json:"offset"`                 // in elements
	ByteOffset    int64          `json:"byte_offset"`
	BitOffset     int64          `json:"bit_offset"`
	BitInByte     int64          `json:"bit_in_byte"`
	ElementBits   int            `json:"element_bits"`
	PhysicalIndex []int64        `json:"physical_index,omitempty"`
	ExpandedIndex []int64        `json:"expanded_index,omitempty"`
	ExpandedDims  []int64        `json:"expanded_dims"`
	Levels        []ExplainLevel `json:"levels"`
	Reason        string         `json:"reason,omitempty"` // for padding: which tile pads what

	ix    *layout.Indexer
	tiles []layout.Tile // the tile of each level, as applied
}

// ExplainLevel is one tile level of an [Explanation].
type ExplainLevel struct {
	Tile       []any   `json:"tile"`
	TileIndex  []int64 `json:"tile_index"`  // index of the tile among the tile counts (and leading dims)
	TileCounts []int64 `json:"tile_counts"` // the dims TileIndex ranges over
	WithinTile []int64 `json:"within_tile"`
}

// Indexer returns the layout the explanation is about.
func (ex *Explanation) Indexer() *layout.Indexer { return ex.ix }

// Tile returns the tile of level i as the index math applies it (a first tile without
// its combined '*' dims).
func (ex *Explanation) Tile(i int) layout.Tile { return ex.tiles[i] }

func newExplanation(ix *layout.Indexer, off int64) *Explanation {
	bits := int64(ix.ElementBits())
	lv := ix.Levels()
	return &Explanation{
		Shape:        ix.Shape().String(),
		Offset:       off,
		ByteOffset:   off * bits / 8,
		BitOffset:    off * bits,
		BitInByte:    off * bits % 8,
		ElementBits:  int(bits),
		ExpandedDims: nonNil(lv[len(lv)-1].Dims),
		Levels:       []ExplainLevel{},
		ix:           ix,
	}
}

// ExplainIndex explains the element at the logical index idx. An index of another rank
// than ix's, or with a coordinate outside its dim, is an error.
func ExplainIndex(ix *layout.Indexer, idx []int64) (*Explanation, error) {
	dims := ix.Dims()
	if len(idx) != len(dims) {
		return nil, fmt.Errorf("report: index (%s) has %d coordinates, but the shape has rank %d (dims [%s])",
			joinInts(idx), len(idx), len(dims), joinInts(dims))
	}
	for i, v := range idx {
		if v < 0 || v >= dims[i] {
			return nil, fmt.Errorf("report: index (%s): coordinate %d is out of range for dimension %d of size %d",
				joinInts(idx), v, i, dims[i])
		}
	}
	return explainIndex(ix, slices.Clone(idx)), nil
}

func explainIndex(ix *layout.Indexer, idx []int64) *Explanation {
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
		ex.Levels = append(ex.Levels, ExplainLevel{
			Tile:       t.Tile.Values(),
			TileIndex:  nonNil(t.Outer),
			TileCounts: nonNil(tl[i].Dims[:len(t.Outer)]),
			WithinTile: t.Within,
		})
	}
	return ex
}

// ExplainOffset explains the element offset off: the element that lives there, or
// why it is padding. An offset outside the footprint is an error.
func ExplainOffset(ix *layout.Indexer, off int64) (*Explanation, error) {
	if ix.FootprintElements() == 0 {
		return nil, fmt.Errorf("report: offset %d: %s has an empty footprint", off, ix.Shape())
	}
	if off < 0 || off >= ix.FootprintElements() {
		return nil, fmt.Errorf("report: offset %d is outside the footprint of %s: offsets run from 0 to %d",
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

// tileLevels returns, for each tile, the shape that tile produces (Levels() without the
// "physical" and "combined" stages).
func tileLevels(ix *layout.Indexer) []layout.Level {
	lv := ix.Levels()
	return lv[len(lv)-len(ix.Shape().Layout.Tiles):]
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
				return fmt.Sprintf("tile T%s rounds dim %d of the %s shape [%s] up from %d to %d; this offset is at position %d of it",
					t, m-k+i, before.Name, joinInts(dims), d, (d+t[i]-1)/t[i]*t[i], v)
			}
			work[m-k+i] = v
		}
		work = work[:m]
	}
	return "the offset decodes to no logical element"
}

// ParseIndex reads a logical index such as "2,3", "(2,3)" or "[2,3]"; a scalar's index is
// "" or "()". It checks the rank and every coordinate against dims.
func ParseIndex(text string, dims []int64) ([]int64, error) {
	s := strings.TrimSpace(text)
	if len(s) >= 2 && (s[0] == '(' && s[len(s)-1] == ')' || s[0] == '[' && s[len(s)-1] == ']') {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	idx := []int64{}
	if s != "" {
		for part := range strings.SplitSeq(s, ",") {
			p := strings.TrimSpace(part)
			v, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				if p == "" {
					return nil, fmt.Errorf("bad index %q: empty coordinate", layout.Quote(text))
				}
				if errors.Is(err, strconv.ErrRange) {
					return nil, fmt.Errorf("bad index %q: coordinate %q is out of range", layout.Quote(text), layout.Quote(p))
				}
				return nil, fmt.Errorf("bad index %q: coordinate %q is not a number", layout.Quote(text), layout.Quote(p))
			}
			idx = append(idx, v)
		}
	}
	if len(idx) != len(dims) {
		return nil, fmt.Errorf("bad index %q: it has %d coordinates, but the shape has rank %d (dims %s)",
			layout.Quote(text), len(idx), len(dims), DimsText(dims))
	}
	for i, v := range idx {
		if v < 0 || v >= dims[i] {
			return nil, fmt.Errorf("bad index %q: coordinate %d is out of range for dimension %d of size %d",
				layout.Quote(text), v, i, dims[i])
		}
	}
	return idx, nil
}
