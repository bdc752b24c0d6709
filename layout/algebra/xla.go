package algebra

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// ErrEmpty is wrapped by FromXLA's error for a shape with a dimension of size 0, which
// has no elements and so no layout.
var ErrEmpty = errors.New("algebra: shape has no elements")

// Mapping is an XLA array shape with its layout read as CuTe layouts: element offsets
// (in units of ElementBits) of logical indices.
//
// When the layout's map is one CuTe layout, One holds it: mode k is logical dim k, its
// sub-modes the digits of the index in order of place (colexicographic, first fastest).
// Its domain may be larger than the shape: Extents[k] ≥ Dims[k] is the padded extent of
// dim k, and only indices below Dims are elements. When it is not (a later tile cuts a
// digit that an earlier one made, or a tile cuts a `*`-merged dim inside one of its
// dims), One is nil and Reason says which cut. Chain is always set: the same map as
// levels evaluated one after another, exact for every layout.
type Mapping struct {
	Shape       layout.Shape
	One         *Layout
	Reason      string
	Chain       []Level
	Dims        []int64
	Extents     []int64 // nil when One is nil
	Alloc       int64   // elements allocated: every tile's padding and L(n) included
	ElementBits int     // bits per element in memory (E(n), or the storage width)

	modes []Layout // One's modes, one per logical dim
	ix    *layout.Indexer
	li    *Layout // One's left inverse
}

// Level is one stage of a chain. The first level maps the logical index (one coordinate
// per dim) to the row-major index of the physical (and `*`-combined) shape; each later
// level maps the previous level's index, a 1-D coordinate, onward: "pad" levels embed a
// shape into its padded extents, tile levels reorder a padded shape into (tile count,
// in-tile) dims. The last level's value is the element offset.
type Level struct {
	Name   string
	Layout Layout
}

// FromXLA reads an array shape with its layout (layout.Parse's form) as a Mapping. It
// fails on what layout.Compile rejects and on shapes with a dimension of size 0.
func FromXLA(s layout.Shape) (Mapping, error) {
	ix, err := layout.Compile(s)
	if err != nil {
		return Mapping{}, err
	}
	for k, d := range s.Dims {
		if d == 0 {
			return Mapping{}, fmt.Errorf("%w: dimension %d of %s is 0", ErrEmpty, k, layout.Quote(s.String()))
		}
	}
	m := Mapping{Shape: s, Dims: append([]int64(nil), s.Dims...), Alloc: ix.FootprintElements(), ElementBits: ix.ElementBits(), ix: ix}
	m.Chain = chain(s, ix)
	modes, reason := oneLayout(s, ix)
	if modes == nil && len(s.Dims) > 0 {
		// The digit rule is sufficient, not necessary: composing the levels with
		// Compose's checks can still give one (exact) layout.
		if c, err := composeChain(m.Chain); err == nil {
			modes = c.modes()
		}
	}
	if modes == nil {
		m.Reason = reason
		return m, nil
	}
	m.modes = modes
	one := assemble(modes)
	m.One = &one
	if li, err := LeftInverse(one); err == nil {
		m.li = &li
	}
	m.Extents = make([]int64, len(modes))
	for k, md := range modes {
		m.Extents[k] = md.Size()
	}
	if len(s.Dims) == 0 {
		m.Extents = nil
	}
	return m, nil
}

// assemble is the layout of per-dim modes: 1:0 for a scalar, the mode itself for rank
// 1, else a tuple.
func assemble(modes []Layout) Layout {
	if len(modes) == 0 {
		return Leaf(1, 0)
	}
	if len(modes) == 1 {
		return modes[0]
	}
	return concat(modes...)
}

// Offset is the element offset of the logical index idx (one entry per dim, in range):
// One's value when there is one layout, else the chain's.
func (m Mapping) Offset(idx []int64) (int64, error) {
	if err := m.checkIndex(idx); err != nil {
		return 0, err
	}
	if m.modes == nil {
		return m.chainOffset(idx)
	}
	off := int64(0)
	for k, md := range m.modes {
		off += md.at(idx[k]) // each idx[k] < Dims[k] ≤ Extents[k]
	}
	return off, nil
}

// ChainOffset is Offset computed through Chain, level by level.
func (m Mapping) ChainOffset(idx []int64) (int64, error) {
	if err := m.checkIndex(idx); err != nil {
		return 0, err
	}
	return m.chainOffset(idx)
}

func (m Mapping) checkIndex(idx []int64) error {
	if len(idx) != len(m.Dims) {
		return fmt.Errorf("algebra: index of %d entries for %s of rank %d", len(idx), m.Shape.String(), len(m.Dims))
	}
	for k, v := range idx {
		if v < 0 || v >= m.Dims[k] {
			return fmt.Errorf("algebra: index %d at dim %d outside [0,%d)", v, k, m.Dims[k])
		}
	}
	return nil
}

func (m Mapping) chainOffset(idx []int64) (int64, error) {
	if len(m.Dims) == 0 {
		return 0, nil
	}
	x, err := m.Chain[0].Layout.EvalCoord(idx)
	if err != nil {
		return 0, err
	}
	for _, l := range m.Chain[1:] {
		if x, err = l.Layout.Eval(x); err != nil {
			return 0, err
		}
	}
	return x, nil
}

// Canonical is One coalesced mode by mode, each mode that is one run clamped to its
// dim: two layouts put every element at the same offset when their Canonical forms are
// equal. ok is false when there is no single layout.
func (m Mapping) Canonical() (l Layout, ok bool) {
	if m.modes == nil {
		return Layout{}, false
	}
	out := make([]Layout, len(m.modes))
	for k, md := range m.modes {
		c := Coalesce(md)
		if c.Shape.IsInt() && c.Shape.Value() > m.Dims[k] {
			c = Leaf(m.Dims[k], c.Stride.Value())
		}
		if c.Shape.IsInt() && c.Shape.Value() == 1 {
			c = Leaf(1, 0)
		}
		out[k] = c
	}
	return assemble(out), true
}

// Words is One viewed in units of 32-bit words (Upcast by the elements per word, then
// coalesced mode by mode), for types narrower than 32 bits.
func (m Mapping) Words() (Layout, error) {
	if m.One == nil {
		return Layout{}, fmt.Errorf("algebra: %s is not one layout: %s", m.Shape.String(), m.Reason)
	}
	if m.ElementBits >= 32 || 32%m.ElementBits != 0 {
		return Layout{}, fmt.Errorf("algebra: %d-bit elements do not pack into 32-bit words", m.ElementBits)
	}
	u, err := Upcast(*m.One, int64(32/m.ElementBits))
	if err != nil {
		return Layout{}, err
	}
	if len(m.modes) == 1 {
		return Coalesce(u), nil
	}
	return CoalesceByMode(u), nil
}

// baseGroups lists, per base dim (physical dim after `*` merges, major first), its
// logical dims major first; the grouping of layout.Compile.
func baseGroups(s layout.Shape) [][]int {
	rank := len(s.Dims)
	m2m := s.Layout.MinorToMajor
	if m2m == nil {
		m2m = layout.RowMajor(rank)
	}
	groups := make([][]int, rank)
	for j := range groups {
		groups[j] = []int{m2m[rank-1-j]}
	}
	tiles := s.Layout.Tiles
	if len(tiles) == 0 || !hasCombined(tiles[0]) {
		return groups
	}
	t := tiles[0]
	for len(groups) < len(t) {
		groups = append([][]int{nil}, groups...)
	}
	off := len(groups) - len(t)
	var out [][]int
	var carry []int
	for j := range groups {
		if k := j - off; k >= 0 && t[k] == layout.Combined {
			carry = append(carry, groups[j]...)
			continue
		}
		out = append(out, append(carry, groups[j]...))
		carry = nil
	}
	return out
}

func hasCombined(t layout.Tile) bool {
	for _, d := range t {
		if d == layout.Combined {
			return true
		}
	}
	return false
}

// firstTile is the first tile with its `*` entries removed, as layout.Compile applies it.
func tilesApplied(s layout.Shape) []layout.Tile {
	tiles := append([]layout.Tile(nil), s.Layout.Tiles...)
	if len(tiles) > 0 && hasCombined(tiles[0]) {
		var nt layout.Tile
		for _, d := range tiles[0] {
			if d != layout.Combined {
				nt = append(nt, d)
			}
		}
		tiles[0] = nt
	}
	return tiles
}

// tileName is a tile's text, e.g. T(8,128).
func tileName(t layout.Tile) string {
	var b strings.Builder
	b.WriteString("T(")
	for i, d := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(')')
	return b.String()
}

// Index is the logical index stored at element offset off, or ok false when off is
// padding or outside [0, Alloc). With one layout whose holes Complement can express it
// uses One's left inverse and checks the answer maps back to off; otherwise (a chain, or
// holes of a size that does not divide the next stride) package layout's inverse.
func (m Mapping) Index(off int64) (idx []int64, ok bool, err error) {
	if off < 0 || off >= m.Alloc {
		return nil, false, nil
	}
	idx = make([]int64, len(m.Dims))
	if m.li == nil || len(m.Dims) == 0 {
		if m.ix == nil {
			return nil, false, fmt.Errorf("algebra: mapping of %s was not made by FromXLA", m.Shape.String())
		}
		return idx, m.ix.Index(off, idx), nil
	}
	li := *m.li
	if off >= li.Size() {
		return nil, false, nil
	}
	c := li.at(off)
	for k, e := range m.Extents {
		idx[k] = c % e
		c /= e
		if idx[k] >= m.Dims[k] {
			return nil, false, nil
		}
	}
	back, err := m.Offset(idx)
	if err != nil || back != off {
		return nil, false, err
	}
	return idx, true, nil
}

// Padding is the complement of One in [0, Alloc): the layout of the offsets One does not
// reach (with the holes of ragged extents, which are in One's domain, not counted), and
// the number of allocated elements that hold no logical element.
func (m Mapping) Padding() (Layout, int64, error) {
	n := int64(1)
	for _, d := range m.Dims {
		n *= d // ≤ Alloc
	}
	if m.One == nil {
		return Layout{}, m.Alloc - n, fmt.Errorf("algebra: %s is not one layout: %s", m.Shape.String(), m.Reason)
	}
	c, err := Complement(*m.One, m.Alloc)
	return c, m.Alloc - n, err
}

// composeChain composes a chain's levels into one layout, the last level outermost; it
// fails where Compose does.
func composeChain(levels []Level) (Layout, error) {
	r := levels[0].Layout
	for _, l := range levels[1:] {
		var err error
		if r, err = Compose(l.Layout, r); err != nil {
			return Layout{}, err
		}
	}
	return r, nil
}

// ErrNotOne is wrapped by the errors of operations that need one layout on the exact
// dims when a Mapping has none.
var ErrNotOne = errors.New("algebra: not one layout")

// Exact is One on the exact dims: a tuple with mode k restricted to [0, Dims[k]) (the
// mode itself for rank 1). It fails, wrapping ErrNotOne, for a chain or when a padded
// dim's mode is not one layout without its padding (a ragged dim below another digit).
func (m Mapping) Exact() (Layout, error) {
	if m.One == nil {
		return Layout{}, fmt.Errorf("%w: %s: %s", ErrNotOne, m.Shape.String(), m.Reason)
	}
	modes := make([]Layout, len(m.modes))
	for k, md := range m.modes {
		if m.Extents[k] != m.Dims[k] {
			var err error
			if md, err = Compose(md, Leaf(m.Dims[k], 1)); err != nil {
				return Layout{}, fmt.Errorf("%w: %s: dim %d (%d) is not one layout without its padding to %d", ErrNotOne, m.Shape.String(), k, m.Dims[k], m.Extents[k])
			}
		}
		modes[k] = md
	}
	if len(modes) == 0 {
		return Leaf(1, 0), nil
	}
	return assemble(modes), nil
}

// CopyMap is the map from src's element offsets to dst's for the same logical element:
// Exact(dst) ∘ RightInverse(Exact(src)), defined on [0, size). src must be hole-free
// (its offsets are exactly [0, size)), else the error wraps ErrNotInjective; a map that
// is not one layout gives Compose's *DivisibilityError.
func CopyMap(src, dst Mapping) (Layout, error) {
	if !slices.Equal(src.Dims, dst.Dims) {
		return Layout{}, fmt.Errorf("algebra: copy map between dims %v and %v", src.Dims, dst.Dims)
	}
	s, err := src.Exact()
	if err != nil {
		return Layout{}, err
	}
	d, err := dst.Exact()
	if err != nil {
		return Layout{}, err
	}
	inv := RightInverse(s)
	if inv.Size() != s.Size() {
		return Layout{}, &InjectiveError{"copy map", s.String(), fmt.Sprintf("the source has holes: its offsets from 0 are contiguous for only %d of %d elements", inv.Size(), s.Size())}
	}
	// inv's coordinates are 1-D over the exact dims; d's modes have exactly those sizes,
	// so d splits them alike.
	return Compose(d, inv)
}
