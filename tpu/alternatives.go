package tpu

import (
	"cmp"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// Alternative is one device layout for an array and what it costs.
type Alternative struct {
	Shape layout.Shape `json:"shape"`
	// Bytes is the footprint; Expansion is Bytes over the unpadded size.
	Bytes     int64   `json:"bytes"`
	Expansion float64 `json:"expansion"`
	// Order is the physical order of the logical dims, major to minor.
	Order []int `json:"order"`
	// TileRows is the first tile's row count (its element count for rank 1).
	TileRows int64 `json:"tile_rows"`
	// Default marks the generation's [DefaultLayout].
	Default bool `json:"default,omitempty"`
}

// Alternatives lists XLA device layouts (memory tilings) of dt[dims] on generation g, cheapest
// first: the default layout, then, for every choice of the two minor dims (the rest
// keep their order, majormost), every first-tile row count Mosaic accepts for the
// dtype — powers of two from p = 32/b rows (2p before v4) up to 8p, the native
// tiling (spec §2.3, §3.1). Rank 1 varies the tile's element count the same way.
// Ties keep the default first, then for each order the tiling [DefaultLayout] would
// pick for that order. Rank 0 has only the default.
func Alternatives(g Generation, dt layout.DType, dims []int64) ([]Alternative, error) {
	chip, err := ChipOf(g)
	if err != nil {
		return nil, err
	}
	def, err := DefaultLayout(chip.Generation, dt, dims)
	if err != nil {
		return nil, err
	}
	b, _ := elementBits(dt) // DefaultLayout checked dt
	n := len(dims)
	logical := layout.CeilDiv(layout.Elements(dims)*int64(b), 8)
	var out []Alternative
	seen := map[string]bool{}
	add := func(l layout.Layout, rows int64, isDefault bool) error {
		s := layout.NewShape(dt, dims...).WithLayout(l)
		key := s.String()
		if seen[key] {
			return nil
		}
		seen[key] = true
		ix, err := layout.Compile(s)
		if err != nil {
			return &AlternativeError{Shape: s, Err: err}
		}
		a := Alternative{Shape: ix.Shape(), Bytes: ix.FootprintBytes(), TileRows: rows, Default: isDefault}
		if logical > 0 {
			a.Expansion = float64(a.Bytes) / float64(logical)
		}
		for j := range l.MinorToMajor {
			a.Order = append(a.Order, l.MinorToMajor[len(l.MinorToMajor)-1-j])
		}
		out = append(out, a)
		return nil
	}
	defRows := int64(0)
	if len(def.Tiles) > 0 {
		defRows = def.Tiles[0][0]
	}
	if err := add(def, defRows, true); err != nil {
		return nil, err
	}
	if n == 0 {
		return out, nil
	}
	p := int64(32 / b)
	minRows := p
	if chip.Version < 4 {
		minRows = 2 * p
	}
	L := int64(chip.Target.Lanes)
	var rowChoices []int64
	for t := 8 * p; t >= minRows; t /= 2 {
		rowChoices = append(rowChoices, t)
	}
	tiles := func(t0 int64) []layout.Tile {
		var ts []layout.Tile
		if n == 1 {
			ts = []layout.Tile{{t0 * L}}
			if b < 32 {
				ts = append(ts, layout.Tile{L}, layout.Tile{p, 1})
			}
			return ts
		}
		ts = []layout.Tile{{t0, L}}
		if b < 32 {
			ts = append(ts, layout.Tile{p, 1})
		}
		return ts
	}
	for _, m2m := range minorPairs(n) {
		// The generation's own choice for this order comes first, so it wins ties.
		phys := make([]int64, n)
		for j := range phys {
			phys[j] = dims[m2m[n-1-j]]
		}
		if pl, err := DefaultLayout(chip.Generation, dt, phys); err == nil {
			l := def
			l.MinorToMajor = m2m
			l.Tiles = pl.Tiles
			if err := add(l, pl.Tiles[0][0], false); err != nil {
				return nil, err
			}
		}
		for _, t0 := range rowChoices {
			l := def
			l.MinorToMajor = m2m
			l.Tiles = tiles(t0)
			if err := add(l, l.Tiles[0][0], false); err != nil {
				return nil, err
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Alternative) int { return cmp.Compare(x.Bytes, y.Bytes) })
	return out, nil
}

// minorPairs lists minor_to_major orders of rank n: row-major first, then every other
// choice of minor and second-minor dim with the remaining dims in their order.
func minorPairs(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for minor := n - 1; minor >= 0; minor-- {
		for second := n - 1; second >= 0; second-- {
			if second == minor {
				continue
			}
			m2m := []int{minor, second}
			for d := n - 1; d >= 0; d-- {
				if d != minor && d != second {
					m2m = append(m2m, d)
				}
			}
			out = append(out, m2m)
		}
	}
	return out
}
