package layout

import (
	"errors"
	"fmt"

	"github.com/tpulayout/tpulayout/internal/compilehook"
)

// maxDigits bounds the rank of the final expanded shape, so the inverse mapping can keep
// its scratch on the stack.
const maxDigits = 64

// Indexer is a shape and layout compiled for index math: logical index ↔ element offset,
// footprint and the expanded (pad-reshape-transpose) shapes. It is immutable, safe for
// concurrent use, and its per-element methods do not allocate.
//
// Element offsets follow XLA's nested tiling (spec Part 1 §3): minor_to_major gives the
// physical order, combined dims `*` of the first tile merge into the next more minor one,
// and each tile splits the minor dims of the shape the previous tile produced into
// (tile count, in-tile) pairs, the in-tile dims moving to the minor end. The offset is
// row-major over the final expanded shape.
type Indexer struct {
	shape  Shape
	dims   []int64 // logical
	bits   int     // bits per element in memory
	levels []Level

	// base dims: physical dims after combining; each is a mixed-radix number of logical dims.
	base     []baseDim
	baseTerm []baseTerm
	// digits: the dims of the final expanded shape, each a function of one base dim.
	digits []Digit
	steps  []step

	expanded  int64 // elements of the final expanded shape
	footprint int64 // expanded, rounded up to L(n)
	logical   int64
}

type baseDim struct{ first, n int } // terms baseTerm[first : first+n]

type baseTerm struct {
	dim  int   // logical dim
	mult int64 // weight of that dim in the base value
	size int64
}

// Digit is one dim of the final expanded shape: its value is Ops applied in order to the
// value of base dim Base, and it contributes value×Stride to the element offset.
type Digit struct {
	Base   int
	Ops    []Op
	Size   int64
	Stride int64
}

// Op is one step of a digit's formula: v = v / Div when Div > 0, else v = v % Mod.
type Op struct{ Div, Mod int64 }

// step records one tile application for the inverse mapping.
type step struct {
	before []int64 // shape before the tile, padded with leading 1s to the tile's rank
	lead   int     // how many of those leading 1s the padding added
	tile   Tile
}

// Level is the shape after one stage of the layout: "physical", "combined" (when the
// first tile has `*`), then one per tile, named by the tile.
type Level struct {
	Name string
	Dims []int64
}

// ErrUnsized is returned when a shape has no size: tuples, tokens, or `?` dimensions.
var ErrUnsized = errors.New("layout: shape has no size")

// Compile prepares an array shape for index math. It fails when the shape has no size
// (wrapping [ErrUnsized]), breaks a rule of the layout, or has a footprint whose bits
// overflow int64; [Parse] makes the same checks.
func Compile(s Shape) (*Indexer, error) {
	if s.Kind != Array || !s.DType.IsArray() {
		return nil, fmt.Errorf("%w: %s is not an array", ErrUnsized, Quote(s.String()))
	}
	for i, d := range s.Dims {
		if d == Unbounded {
			return nil, fmt.Errorf("%w: dimension %d of %s is unbounded dynamic '?'", ErrUnsized, i, Quote(s.String()))
		}
	}
	if compilehook.On() {
		compilehook.Compiled(s.String())
	}
	ix, err := compile(s)
	if err != nil {
		return nil, fmt.Errorf("layout: %s: %w", Quote(s.String()), err)
	}
	return ix, nil
}

// compile is Compile on an array shape with sizes; its errors do not name the shape.
// It follows the layout's stages: physical order, combined dims, then each tile, and
// ends with the digits of the final expanded shape and the footprint.
func compile(s Shape) (*Indexer, error) {
	s, logical, err := normalize(s)
	if err != nil {
		return nil, err
	}
	l := s.Layout
	ix := &Indexer{shape: s, dims: s.Dims, logical: logical}
	ix.bits = s.DType.StorageBits()
	if l.ElementBits > 0 {
		ix.bits = int(l.ElementBits)
	}
	phys, groups := physicalDims(s.Dims, l.MinorToMajor)
	ix.levels = append(ix.levels, Level{"physical", append([]int64(nil), phys...)})
	tiles := l.Tiles
	if len(tiles) > 0 && hasCombined(tiles[0]) {
		var first Tile
		phys, groups, first, err = combineDims(phys, groups, tiles[0])
		if err != nil {
			return nil, err
		}
		tiles = append([]Tile{first}, tiles[1:]...)
		ix.levels = append(ix.levels, Level{"combined", append([]int64(nil), phys...)})
	}
	ix.addBaseDims(groups)
	shape, ds, err := ix.applyTiles(phys, tiles)
	if err != nil {
		return nil, err
	}
	return ix, ix.setDigits(shape, ds, l)
}

// normalize checks the dims and the layout of s, gives it the row-major order when it
// has none, and returns it with its count of logical elements.
func normalize(s Shape) (Shape, int64, error) {
	rank := len(s.Dims)
	for i, d := range s.Dims {
		if d < 0 {
			return s, 0, fmt.Errorf("dimension %d is negative", i)
		}
	}
	l := s.Layout
	if l.MinorToMajor == nil && rank > 0 {
		l.MinorToMajor = RowMajor(rank)
	}
	if err := l.validate(s.DType, rank); err != nil {
		return s, 0, err
	}
	s.Layout = l
	logical := int64(1)
	for _, d := range s.Dims {
		logical = mulCheck(logical, d)
	}
	if logical < 0 {
		return s, 0, errors.New("the element count overflows int64")
	}
	return s, logical, nil
}

// physicalDims returns the dims in physical order, major to minor, and for each the
// logical dims it holds (one each, until dims are combined).
func physicalDims(dims []int64, minorToMajor []int) (phys []int64, groups [][]int) {
	rank := len(dims)
	phys = make([]int64, rank)
	groups = make([][]int, rank)
	for j := range phys {
		phys[j] = dims[minorToMajor[rank-1-j]]
		groups[j] = []int{minorToMajor[rank-1-j]}
	}
	return phys, groups
}

// combineDims pads the physical dims to the rank of tile t, then merges each dim under a
// '*' of t into the next more minor one. It returns the merged dims, their logical dims
// and t without its '*' entries.
func combineDims(phys []int64, groups [][]int, t Tile) ([]int64, [][]int, Tile, error) {
	for len(phys) < len(t) {
		phys = append([]int64{1}, phys...)
		groups = append([][]int{nil}, groups...)
	}
	off := len(phys) - len(t)
	var np []int64
	var ng [][]int
	var nt Tile
	carry, carryG := int64(1), []int(nil)
	for j := range phys {
		k := j - off
		if k >= 0 && t[k] == Combined {
			carry = mulCheck(carry, phys[j])
			carryG = append(carryG, groups[j]...)
			continue
		}
		np = append(np, mulCheck(carry, phys[j]))
		if np[len(np)-1] < 0 { // only when another dim is 0
			return nil, nil, nil, errors.New("combining dims '*' overflows int64")
		}
		ng = append(ng, append(carryG, groups[j]...))
		carry, carryG = 1, nil
		if k >= 0 {
			nt = append(nt, t[k])
		}
	}
	return np, ng, nt, nil
}

// addBaseDims records each physical dim as a mixed-radix number of its logical dims.
func (ix *Indexer) addBaseDims(groups [][]int) {
	for _, g := range groups {
		bd := baseDim{first: len(ix.baseTerm), n: len(g)}
		mult := int64(1)
		for i := len(g) - 1; i >= 0; i-- {
			ix.baseTerm = append(ix.baseTerm, baseTerm{dim: g[i], mult: mult, size: ix.dims[g[i]]})
			mult *= ix.dims[g[i]] // no overflow: at most the combined dim
		}
		ix.base = append(ix.base, bd)
	}
}

// digitOf is a dim of a shape being tiled: the base dim it is a function of (-1 for a
// leading 1 a tile added) and the ops that compute it from that base dim.
type digitOf struct {
	base int
	ops  []Op
}

// applyTiles applies the tiles in turn to the dims phys: each splits the minor dims it
// covers into (tile count, in-tile) pairs, the in-tile dims moving to the minor end. It
// records a step and a level for each tile and returns the final expanded shape with
// the formula of each of its dims.
func (ix *Indexer) applyTiles(phys []int64, tiles []Tile) ([]int64, []digitOf, error) {
	shape := append([]int64(nil), phys...)
	ds := make([]digitOf, len(shape))
	for j := range ds {
		ds[j] = digitOf{base: j}
	}
	for _, t := range tiles {
		k := len(t)
		lead := 0
		for len(shape) < k {
			shape = append([]int64{1}, shape...)
			ds = append([]digitOf{{base: -1}}, ds...)
			lead++
		}
		ix.steps = append(ix.steps, step{before: append([]int64(nil), shape...), lead: lead, tile: t})
		n := len(shape)
		nshape := append([]int64(nil), shape[:n-k]...)
		nds := append([]digitOf(nil), ds[:n-k]...)
		for i := 0; i < k; i++ {
			d := ds[n-k+i]
			nshape = append(nshape, ceilDiv(shape[n-k+i], t[i]))
			nds = append(nds, digitOf{d.base, appendOp(d.ops, Op{Div: t[i]})})
		}
		for i := 0; i < k; i++ {
			d := ds[n-k+i]
			nshape = append(nshape, t[i])
			nds = append(nds, digitOf{d.base, appendOp(d.ops, Op{Mod: t[i]})})
		}
		shape, ds = nshape, nds
		// Checked per tile: each adds dims, and thousands of tiles would cost quadratic
		// time and memory before a check at the end.
		if len(shape) > maxDigits {
			return nil, nil, fmt.Errorf("the tiles expand it to more than the %d dims supported", maxDigits)
		}
		ix.levels = append(ix.levels, Level{"T" + t.String(), append([]int64(nil), shape...)})
	}
	return shape, ds, nil
}

// setDigits sets the digits of the final expanded shape, row-major, and the footprint:
// the elements of that shape, rounded up to the tail padding L(n) of a tiled layout l.
func (ix *Indexer) setDigits(shape []int64, ds []digitOf, l Layout) error {
	stride := int64(1)
	foot := int64(1)
	for _, d := range shape {
		foot = mulCheck(foot, d)
	}
	if foot < 0 {
		return errors.New("the footprint (elements of the tiled shape) overflows int64")
	}
	ix.digits = make([]Digit, len(shape))
	for j := len(shape) - 1; j >= 0; j-- {
		ix.digits[j] = Digit{Base: ds[j].base, Ops: ds[j].ops, Size: shape[j], Stride: stride}
		stride *= shape[j]
	}
	ix.expanded = foot
	// XLA rounds up to L(n) only a tiled layout (ShapeUtil::ArraySize sizes an untiled
	// one as its elements), so an untiled L(n) leaves the footprint as it is.
	if a := l.TailPadding; a > 1 && len(l.Tiles) > 0 {
		foot = mulCheck(ceilDiv(foot, a), a)
		if foot < 0 {
			return fmt.Errorf("the footprint overflows int64: L(%d) rounds %d elements up past it", a, ix.expanded)
		}
	}
	ix.footprint = foot
	if ix.FootprintBytes() < 0 {
		// Counted in bits, so that every bit offset fits too.
		return fmt.Errorf("the footprint of %d elements of %d bits overflows int64 (sizes are counted in bits)", foot, ix.bits)
	}
	return nil
}

func hasCombined(t Tile) bool {
	for _, d := range t {
		if d == Combined {
			return true
		}
	}
	return false
}

// appendOp extends a digit's formula, folding v/a/b into v/(ab).
func appendOp(ops []Op, o Op) []Op {
	out := append([]Op(nil), ops...)
	if n := len(out); n > 0 && o.Div > 0 && out[n-1].Div > 0 {
		out[n-1].Div *= o.Div
		return out
	}
	return append(out, o)
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b ≥ 1; a+b-1 would overflow for large b.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// mulCheck multiplies non-negative numbers, returning -1 on overflow; -1 stays -1 (an
// overflow already happened), except that anything times 0 is 0.
func mulCheck(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a < 0 || b < 0 {
		return -1
	}
	if a != 0 && b > (1<<63-1)/a {
		return -1
	}
	return a * b
}

// validate checks a layout against a rank (spec Part 1 §2), for layouts built in code.
func (l Layout) validate(dt DType, rank int) error {
	if len(l.MinorToMajor) != rank {
		return fmt.Errorf("dimensions size is %d, but minor to major size is %d", rank, len(l.MinorToMajor))
	}
	seen := make([]bool, rank)
	for _, d := range l.MinorToMajor {
		if d < 0 || d >= rank || seen[d] {
			return fmt.Errorf("minor_to_major %v is not a permutation of the %d dims", l.MinorToMajor, rank)
		}
		seen[d] = true
	}
	for i, t := range l.Tiles {
		if len(t) == 0 {
			return errors.New("empty tile ()")
		}
		for j, d := range t {
			if d == Combined {
				if i > 0 {
					return errors.New("combined dimension '*' is only allowed in the first tile")
				}
				if j == len(t)-1 {
					return errors.New("a tile cannot end with a combined dimension '*'")
				}
			} else if d < 1 {
				return fmt.Errorf("tile dimension %d must be at least 1", d)
			}
		}
	}
	if l.TailPadding < 0 {
		return fmt.Errorf("L(%d) must be at least 1", l.TailPadding)
	}
	if l.ElementBits < 0 {
		return fmt.Errorf("E(%d) must not be negative", l.ElementBits)
	}
	if err := checkElementBits(dt, l.ElementBits); err != nil {
		return err
	}
	if l.IsSparse() {
		return fmt.Errorf("%w: D(…) makes it sparse, and its size depends on the number of stored elements", ErrSparse)
	}
	if l.IndexType != Invalid || l.PointerType != Invalid || l.Physical != nil {
		return errors.New("sparse attributes #, * or P on a dense array")
	}
	return nil
}

// checkElementBits is the rule for E(n) on an element type: an element must hold the
// type's bits and sit within one byte or be whole bytes (spec Part 1 §6: packed within
// each byte), so a type of 8 bits or more takes only its own width, and a sub-byte type
// or pred takes 1, 2, 4 or 8 bits, at least its own width. (XLA's printer tests show
// pred[…]{…:E(32)}, which no buffer here can hold.)
func checkElementBits(dt DType, e int64) error {
	b := int64(dt.Bits())
	switch {
	case e == 0:
	case b >= 8 && e != b:
		return fmt.Errorf("E(%d) on %s: a %d-bit type takes E(%d) or no E", e, dt, b, b)
	case b < 8 && (e < b || e > 8 || 8%e != 0):
		return fmt.Errorf("E(%d) on %s: element size must be 1, 2, 4 or 8 bits and at least %d", e, dt, b)
	}
	return nil
}

// Shape returns the compiled shape (with its layout filled in).
func (ix *Indexer) Shape() Shape { return ix.shape }

// Rank is the number of logical dims.
func (ix *Indexer) Rank() int { return len(ix.dims) }

// Dims returns the logical dims; callers must not modify them.
func (ix *Indexer) Dims() []int64 { return ix.dims }

// ElementBits is the width of one element in memory: E(n) when set, else the type's
// storage width (sub-byte types and pred without E take 8 bits, as in XLA).
func (ix *Indexer) ElementBits() int { return ix.bits }

// Digits describes the final expanded shape, major first; callers must not modify it.
func (ix *Indexer) Digits() []Digit { return ix.digits }

// BaseValue returns the value of base dim b for logical index idx.
func (ix *Indexer) BaseValue(b int, idx []int64) int64 {
	if b < 0 {
		return 0
	}
	bd := ix.base[b]
	v := int64(0)
	for _, t := range ix.baseTerm[bd.first : bd.first+bd.n] {
		v += idx[t.dim] * t.mult
	}
	return v
}

// Eval applies the digit's formula to a base value.
func (d *Digit) Eval(v int64) int64 {
	for _, o := range d.Ops {
		if o.Div > 0 {
			v /= o.Div
		} else {
			v %= o.Mod
		}
	}
	return v
}

// Offset returns the element offset of logical index idx (len Rank, each in range).
func (ix *Indexer) Offset(idx []int64) int64 {
	off := int64(0)
	for i := range ix.digits {
		d := &ix.digits[i]
		off += d.Eval(ix.BaseValue(d.Base, idx)) * d.Stride
	}
	return off
}

// BitOffset is Offset × ElementBits: where the element starts, in bits from the buffer
// start. Sub-byte elements sit least-significant bits first within each byte.
func (ix *Indexer) BitOffset(idx []int64) int64 { return ix.Offset(idx) * int64(ix.bits) }

// ByteOffset is the byte holding the element's first bit.
func (ix *Indexer) ByteOffset(idx []int64) int64 { return ix.BitOffset(idx) / 8 }

// Index finds the logical index stored at element offset off and writes it to idx (len
// Rank). It returns false when off is padding or outside the footprint.
func (ix *Indexer) Index(off int64, idx []int64) bool {
	if off < 0 || off >= ix.footprint {
		return false
	}
	if off >= ix.expanded {
		return false // tail padding from L(n)
	}
	var work [maxDigits]int64
	for j := range ix.digits {
		d := &ix.digits[j]
		work[j] = off / d.Stride % d.Size
	}
	// Undo the tiles, last first: prefix, quotients, remainders → values before the tile.
	// The leading dims a step added to fit its tile's rank must then be 0; dropping them
	// leaves the shape the step before produced.
	for s := len(ix.steps) - 1; s >= 0; s-- {
		st := &ix.steps[s]
		k := len(st.tile)
		m := len(st.before)
		for i := 0; i < k; i++ {
			v := work[m-k+i]*st.tile[i] + work[m+i]
			if v >= st.before[m-k+i] {
				return false
			}
			work[m-k+i] = v
		}
		for j := 0; j < st.lead; j++ {
			if work[j] != 0 {
				return false
			}
		}
		copy(work[:], work[st.lead:m])
	}
	// Now work holds the base values. Base dims of no logical dim (leading 1s added to
	// fit a combined tile's rank) have no terms, so only 0 passes the check below.
	for b, bd := range ix.base {
		v := work[b]
		for _, t := range ix.baseTerm[bd.first : bd.first+bd.n] {
			if t.size == 0 {
				return false
			}
			idx[t.dim] = v % t.size
			v /= t.size
		}
		if v != 0 {
			return false
		}
	}
	return true
}

// LogicalElements is the product of the logical dims.
func (ix *Indexer) LogicalElements() int64 { return ix.logical }

// FootprintElements is the element count of the final expanded shape, every tile's padding
// included, rounded up to a multiple of L(n). XLA's ArraySize uses the first tile only
// and ignores L when untiled; this is the true nested footprint (spec Part 1 §5).
func (ix *Indexer) FootprintElements() int64 { return ix.footprint }

// FootprintBytes is ceil(FootprintElements × ElementBits / 8).
func (ix *Indexer) FootprintBytes() int64 {
	e := mulCheck(ix.footprint, int64(ix.bits))
	if e < 0 {
		return -1
	}
	return (e + 7) / 8
}

// LogicalBytes is the unpadded size, XLA's ByteSizeOf: ceil(logical elements × bits / 8).
func (ix *Indexer) LogicalBytes() int64 { return (ix.logical*int64(ix.bits) + 7) / 8 }

// PaddingFraction is the share of the footprint that holds no logical element.
func (ix *Indexer) PaddingFraction() float64 {
	if ix.footprint == 0 {
		return 0
	}
	return float64(ix.footprint-ix.logical) / float64(ix.footprint)
}

// Levels returns the shape after each stage: physical order, combined dims (if any),
// then one entry per tile. The last entry is the final expanded shape.
func (ix *Indexer) Levels() []Level { return ix.levels }

// TileIndex is where an element sits at one tile level: the index of its tile (the dims
// before the tile's own) and its index within the tile.
type TileIndex struct {
	Tile   Tile
	Outer  []int64 // index over the shape's leading dims and tile counts
	Within []int64 // index within the tile
}

// Explain returns, for each tile level, the tile and within-tile index of idx.
func (ix *Indexer) Explain(idx []int64) []TileIndex {
	// Recompute the level-by-level index forward from the physical (combined) index.
	cur := make([]int64, len(ix.base))
	for b := range ix.base {
		cur[b] = ix.BaseValue(b, idx)
	}
	var out []TileIndex
	for _, st := range ix.steps {
		k := len(st.tile)
		for len(cur) < len(st.before) {
			cur = append([]int64{0}, cur...)
		}
		m := len(cur)
		next := append([]int64(nil), cur[:m-k]...)
		within := make([]int64, k)
		for i := 0; i < k; i++ {
			next = append(next, cur[m-k+i]/st.tile[i])
			within[i] = cur[m-k+i] % st.tile[i]
		}
		out = append(out, TileIndex{Tile: st.tile, Outer: append([]int64(nil), next...), Within: within})
		cur = append(next, within...)
	}
	return out
}

// NextIndex advances idx to the next logical index in row-major order over dims and
// reports whether there is one. Start from all zeros (and a non-empty array).
func NextIndex(idx, dims []int64) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < dims[i] {
			return true
		}
		idx[i] = 0
	}
	return false
}
