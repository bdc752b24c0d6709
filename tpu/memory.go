package tpu

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// ErrNotLoadable is wrapped by every [*RuleError].
var ErrNotLoadable = errors.New("tpu: memory layout cannot be loaded into vregs")

// The rules a memory layout must meet to load straight into vregs (spec §2.2, §3.1).
const (
	RuleArray        = "array"          // a dense array with static (or bounded) dims
	RuleDType        = "dtype"          // elements of 2, 4, 8, 16 or 32 bits
	RuleRowMajor     = "row-major"      // minor_to_major {n-1,…,0}: the last dim goes to lanes
	RuleTiled        = "tiled"          // the layout has tiles
	RuleFirstTile    = "first-tile"     // the first tile is (t0,L), or (k·L) for a 1-D array
	RuleMinorTile    = "minor-tile"     // the first tile's minor entry is the lane count, 128
	RulePackingTile  = "packing-tile"   // b < 32: the tile after the first is exactly (p,1)
	RuleTileRows     = "tile-rows"      // b < 32: t0 is a multiple of p
	RuleElementSize  = "element-size"   // sub-byte types carry E(b); E, when set, equals b
	RuleVregLayout   = "vreg-layout"    // the tiling is a valid VectorLayout for the target
	RuleNoExtraAttrs = "no-extra-attrs" // no split configs, no M(n) prefix, no sparse attrs
)

// RuleError says why a memory layout cannot be loaded into vregs, naming the rule.
type RuleError struct {
	Shape  string // the offending shape, printed
	Rule   string // one of the Rule… constants
	Detail string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("tpu: %s cannot be loaded into vregs: rule %s: %s", e.Shape, e.Rule, e.Detail)
}

// Unwrap returns [ErrNotLoadable].
func (e *RuleError) Unwrap() error { return ErrNotLoadable }

// MemTiling is a memory layout that loads straight into vregs: a row-major array tiled
// [T(t0,L)] (32-bit) or [T(t0,L), T(p,1)] (b < 32, t0 a multiple of p), or a 1-D
// array tiled [T(k·L)] or [T(k·L), T(L), T(p,1)] (k a multiple of p).
//
// Its placement math is the TPU model's own (spec §2.2, §3.3, §3.4), not the layout
// package's: tiles are laid out row-major, each holds t0·L/p 32-bit words, and in a tile
// rows p·k … p·k+p−1 of one column share word k·L + column, the first row in the low
// bits. A 1-D array's element i is word (i / (L·p))·L + i % L, slot (i / L) % p.
type MemTiling struct {
	shape    layout.Shape
	target   Target
	bits     int
	p        int64
	oneD     bool
	t0       int64 // first-tile rows (rank ≥ 2)
	chunk    int64 // first tile's elements (rank 1)
	dims     []int64
	lead     []int64 // dims before the last two (rank ≥ 2)
	rows     int64   // second-minor dim (1 for rank 1)
	cols     int64   // minor dim
	padRows  int64
	padCols  int64
	tilesR   int64
	tilesC   int64
	tileWrds int64 // words per first-level tile (rank ≥ 2)
	words    int64 // 32-bit words in the whole tiled array
}

// NewMemTiling checks that shape s can be loaded into vregs of target t (zero: 8 × 128)
// and prepares its placement math. The error is a [*RuleError] naming the broken rule.
func NewMemTiling(t Target, s layout.Shape) (*MemTiling, error) {
	t = t.orDefault()
	b, err := checkLoadable(s)
	if err != nil {
		return nil, err
	}
	m := &MemTiling{shape: s, target: t, bits: b, p: int64(32 / b), dims: append([]int64(nil), s.Dims...)}
	if len(s.Dims) == 1 {
		err = m.tileVector()
	} else {
		err = m.tileRows()
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ruleError is the [*RuleError] of shape s breaking rule, its detail formatted.
func ruleError(s layout.Shape, rule, format string, args ...any) error {
	return &RuleError{Shape: s.String(), Rule: rule, Detail: fmt.Sprintf(format, args...)}
}

// checkLoadable checks the rules that do not depend on the rank: a sized array of a
// modelled type, packed as its width says, row-major and tiled, without the attributes
// the model leaves out. It returns the element width in bits.
func checkLoadable(s layout.Shape) (int, error) {
	if s.Kind != layout.Array || !s.DType.IsArray() {
		return 0, ruleError(s, RuleArray, "not an array")
	}
	for i, d := range s.Dims {
		if d < 0 {
			return 0, ruleError(s, RuleArray, "dim %d has no static size", i)
		}
	}
	if len(s.Dims) == 0 {
		return 0, ruleError(s, RuleArray, "a scalar has no vreg tiling here; reshape it to [1]")
	}
	l := s.Layout
	if len(l.Splits) > 0 || l.PrefixBytes > 0 || l.IndexType != layout.Invalid || l.PointerType != layout.Invalid || l.Physical != nil {
		return 0, ruleError(s, RuleNoExtraAttrs, "split configs, M(n) and sparse attributes are not modelled")
	}
	b, err := elementBits(s.DType)
	if err != nil {
		return 0, ruleError(s, RuleDType, "%v", err)
	}
	if s.DType.IsSubByte() && l.ElementBits != int64(b) {
		return 0, ruleError(s, RuleElementSize, "a %d-bit type must be packed with E(%d), have E(%d)", b, b, l.ElementBits)
	}
	if !s.DType.IsSubByte() && l.ElementBits != 0 && l.ElementBits != int64(b) {
		return 0, ruleError(s, RuleElementSize, "E(%d) differs from the %d-bit element width", l.ElementBits, b)
	}
	n := len(s.Dims)
	for i, d := range l.MinorToMajor {
		if d != n-1-i {
			return 0, ruleError(s, RuleRowMajor, "minor_to_major %v is not row-major; the last dim must map to lanes", l.MinorToMajor)
		}
	}
	if len(l.Tiles) == 0 {
		return 0, ruleError(s, RuleTiled, "an untiled layout has no vreg image; use T(8,128) or a default layout")
	}
	return b, nil
}

// tileVector checks the tiles of a 1-D array, [T(k·L)] or [T(k·L), T(L), T(p,1)], and
// sets its placement math.
func (m *MemTiling) tileVector() error {
	s, b, p, L := m.shape, m.bits, m.p, int64(m.target.Lanes)
	tiles := s.Layout.Tiles
	first := tiles[0]
	wantTiles := 1
	if b < 32 {
		wantTiles = 3
	}
	if len(first) != 1 {
		return ruleError(s, RuleFirstTile, "a 1-D array needs a first tile (k·%d), have %s", L, first)
	}
	if first[0]%L != 0 || first[0] <= 0 {
		return ruleError(s, RuleMinorTile, "first tile %s is not a multiple of %d", first, L)
	}
	if len(tiles) != wantTiles {
		return ruleError(s, RulePackingTile, "a %d-bit 1-D array needs %s", b, oneDTiles(b, p, L))
	}
	if b < 32 {
		if !slices.Equal(tiles[1], layout.Tile{L}) || !slices.Equal(tiles[2], layout.Tile{p, 1}) {
			return ruleError(s, RulePackingTile, "a %d-bit 1-D array needs %s, have %s", b, oneDTiles(b, p, L), tilesString(tiles))
		}
		if (first[0]/L)%p != 0 {
			return ruleError(s, RuleTileRows, "first tile %s holds %d rows of %d, not a multiple of p = %d", first, first[0]/L, L, p)
		}
	}
	m.oneD = true
	m.chunk = first[0]
	m.rows, m.cols = 1, s.Dims[0]
	m.padRows = 1
	m.padCols = layout.CeilDiv(m.cols, m.chunk) * m.chunk
	m.words = m.padCols / p
	return nil
}

// tileRows checks the tiles of an array of rank 2 or more, [T(t0,L)] or
// [T(t0,L), T(p,1)] with t0 a multiple of p, and sets its placement math.
func (m *MemTiling) tileRows() error {
	s, b, p, L := m.shape, m.bits, m.p, int64(m.target.Lanes)
	tiles := s.Layout.Tiles
	first := tiles[0]
	wantTiles := 1
	if b < 32 {
		wantTiles = 2
	}
	if len(first) != 2 {
		return ruleError(s, RuleFirstTile, "the first tile must be (t0,%d), have %s", L, first)
	}
	if first[1] != L {
		return ruleError(s, RuleMinorTile, "the first tile's minor entry must be %d, have %s", L, first)
	}
	if first[0] <= 0 {
		return ruleError(s, RuleFirstTile, "the first tile %s has no rows", first)
	}
	if len(tiles) != wantTiles || b < 32 && !slices.Equal(tiles[1], layout.Tile{p, 1}) {
		detail := fmt.Sprintf("a %d-bit array needs T(t0,%d)", b, L)
		if b < 32 {
			detail += fmt.Sprintf("(%d,1)", p)
		}
		detail += ", have T" + tilesString(tiles)
		if b < 32 && len(tiles) == 2 && slices.Equal(tiles[1], layout.Tile{p, 1, 1, 1}) {
			detail += fmt.Sprintf(" (XLA's alternative that pairs rows r and r+%d; Mosaic rejects it)", first[0])
		}
		return ruleError(s, RulePackingTile, "%s", detail)
	}
	if first[0]%p != 0 {
		return ruleError(s, RuleTileRows, "first-tile rows %d are not a multiple of p = %d", first[0], p)
	}
	vl := VregLayout{Bits: b, Tiling: [2]int64{first[0], L}, Target: m.target}
	if err := vl.Validate(); err != nil {
		return ruleError(s, RuleVregLayout, "%v", err)
	}
	n := len(s.Dims)
	m.t0 = first[0]
	m.lead = append([]int64(nil), s.Dims[:n-2]...)
	m.rows, m.cols = s.Dims[n-2], s.Dims[n-1]
	m.tilesR, m.tilesC = layout.CeilDiv(m.rows, m.t0), layout.CeilDiv(m.cols, L)
	m.padRows, m.padCols = m.tilesR*m.t0, m.tilesC*L
	m.tileWrds = m.t0 * L / p
	m.words = layout.Elements(m.lead) * m.tilesR * m.tilesC * m.tileWrds
	return nil
}

func oneDTiles(b int, p, L int64) string {
	if b == 32 {
		return fmt.Sprintf("exactly one tile T(k·%d)", L)
	}
	return fmt.Sprintf("T(k·%d)(%d)(%d,1)", L, L, p)
}

func tilesString(ts []layout.Tile) string {
	s := ""
	for _, t := range ts {
		s += t.String()
	}
	return s
}

// Shape is the memory shape.
func (m *MemTiling) Shape() layout.Shape { return m.shape }

// Bits is the element width in bits.
func (m *MemTiling) Bits() int { return m.bits }

// Packing is p = 32/Bits, the elements per 32-bit word.
func (m *MemTiling) Packing() int { return int(m.p) }

// Target is the vreg geometry the tiling was checked against.
func (m *MemTiling) Target() Target { return m.target }

// TileBytes is the size of one first-level tile: 4 KiB for f32 T(8,128), 2 KiB for
// bf16 T(8,128)(2,1), 512 B for f32 T(1,128).
func (m *MemTiling) TileBytes() int64 {
	if m.oneD {
		return m.chunk * int64(m.bits) / 8
	}
	return m.tileWrds * 4
}

// Tiles is the number of first-level tiles.
func (m *MemTiling) Tiles() int64 {
	if m.oneD {
		return m.padCols / m.chunk
	}
	return layout.Elements(m.lead) * m.tilesR * m.tilesC
}

// Bytes is the tiled array's size: prod(lead) · ceil(R/t0)·t0 · ceil(C/L)·L · b/8
// (spec §3.3), rounded up for the layout's L(n) tail padding.
func (m *MemTiling) Bytes() int64 {
	elems := m.words * m.p
	if tp := m.shape.Layout.TailPadding; tp > 1 {
		elems = layout.CeilDiv(elems, tp) * tp
	}
	return layout.CeilDiv(elems*int64(m.bits), 8)
}

// LoadLayout is the vreg layout a plain vector load of this memory produces: its first
// tile with zero offsets, (t0,L) for rank ≥ 2, and single-row (1, L·p) with implicit
// dim -2 for rank 1 (every (1,x) tiling places elements alike, spec §2.1).
func (m *MemTiling) LoadLayout() VregLayout {
	if m.oneD {
		return VregLayout{Bits: m.bits, Tiling: [2]int64{1, int64(m.target.Lanes) * m.p},
			Implicit: ImplicitSecondMinor, Target: m.target}
	}
	return VregLayout{Bits: m.bits, Tiling: [2]int64{m.t0, int64(m.target.Lanes)}, Target: m.target}
}

// MemLoc is where an element sits in memory: the 32-bit word counted from the buffer
// start, the slot in the word (slot 0 is the low bits), the bit and byte offsets, and
// the first-level tile's index (leading dims…, tile row, tile column; or the tile
// number for a 1-D array).
type MemLoc struct {
	Word       int64   `json:"word"`
	Slot       int     `json:"slot"`
	BitOffset  int64   `json:"bit_offset"`
	ByteOffset int64   `json:"byte_offset"`
	Tile       []int64 `json:"tile"`
}

func (l MemLoc) String() string { return fmt.Sprintf("word %d.%d (tile %v)", l.Word, l.Slot, l.Tile) }

// Locate returns where logical index idx sits. It does not check bounds.
func (m *MemTiling) Locate(idx []int64) MemLoc {
	n := len(idx)
	if m.oneD {
		return m.locate(nil, 0, idx[0], true)
	}
	return m.locate(idx[:n-2], idx[n-2], idx[n-1], true)
}

// locate maps (leading index, row, column) of the padded array to memory. With tile
// set it also fills the tile index (which allocates).
func (m *MemTiling) locate(lead []int64, r, c int64, tile bool) MemLoc {
	L := int64(m.target.Lanes)
	var loc MemLoc
	if m.oneD {
		loc.Word = c/(L*m.p)*L + c%L
		loc.Slot = int(c / L % m.p)
		if tile {
			loc.Tile = []int64{c / m.chunk}
		}
	} else {
		flat := int64(0)
		for i, x := range lead {
			flat = flat*m.lead[i] + x
		}
		ti, tj := r/m.t0, c/L
		rin := r % m.t0
		loc.Word = ((flat*m.tilesR+ti)*m.tilesC+tj)*m.tileWrds + rin/m.p*L + c%L
		loc.Slot = int(rin % m.p)
		if tile {
			loc.Tile = append(append(make([]int64, 0, len(lead)+2), lead...), ti, tj)
		}
	}
	loc.BitOffset = loc.Word*32 + int64(loc.Slot*m.bits)
	loc.ByteOffset = loc.BitOffset / 8
	return loc
}

// backed reports whether padded coordinates (r, c) lie inside the tiled memory array.
func (m *MemTiling) backed(r, c int64) bool {
	return r >= 0 && c >= 0 && r < m.padRows && c < m.padCols
}
