package report

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/layout/algebra"
)

// The reports of the layout algebra: what `tpulayout cute`, `whereis`, `equal`,
// `copymap`, `blocks` and `padding` print with --json, and the Python package returns.
// Bad input is a *SettingError naming the argument (see Settings).

// LayoutMapping reads a compiled array layout as an algebra Mapping.
func LayoutMapping(ix *layout.Indexer) (algebra.Mapping, error) {
	m, err := algebra.FromXLA(ix.Shape())
	if err != nil {
		return algebra.Mapping{}, settingf("Shape", "%s", err)
	}
	return m, nil
}

// SamePair checks that two layouts have the same dims and element width, as equal and
// copymap need.
func SamePair(a, b algebra.Mapping) error {
	if !slices.Equal(a.Dims, b.Dims) {
		return settingf("B", "the dims differ: %s vs %s", intList(a.Dims), intList(b.Dims))
	}
	if a.ElementBits != b.ElementBits {
		return settingf("B", "the element widths differ: %d vs %d bits", a.ElementBits, b.ElementBits)
	}
	return nil
}

// CuteLevel is one level of a chain: its name and layout.
type CuteLevel struct {
	Name   string `json:"name"`
	Layout string `json:"layout"`
}

// Cute is a layout in CuTe's notation (One, absent for a chain, with Reason and the
// Chain of levels), its size, cosize, padded extents, allocation and padding.
type Cute struct {
	Shape       string      `json:"shape"`
	ElementBits int         `json:"element_bits"`
	One         string      `json:"one,omitempty"`
	Coalesced   string      `json:"coalesced,omitempty"`
	Reason      string      `json:"reason,omitempty"`
	Size        int64       `json:"size,omitempty"`
	Cosize      int64       `json:"cosize,omitempty"`
	Extents     []int64     `json:"extents,omitempty"`
	Alloc       int64       `json:"alloc"`
	AllocBytes  int64       `json:"alloc_bytes"`
	Padding     int64       `json:"padding"`
	Complement  string      `json:"complement,omitempty"`
	Words       string      `json:"words,omitempty"`
	Chain       []CuteLevel `json:"chain"`
}

// NewCute reports m; words adds its view in 32-bit words (a packed type's).
func NewCute(m algebra.Mapping, words bool) (*Cute, error) {
	r := &Cute{Shape: m.Shape.String(), ElementBits: m.ElementBits, Reason: m.Reason, Alloc: m.Alloc}
	r.AllocBytes = (m.Alloc*int64(m.ElementBits) + 7) / 8 // Compile checked the bits fit
	comp, pad, err := m.Padding()
	r.Padding = pad
	if m.One != nil {
		r.One, r.Size, r.Cosize, r.Extents = m.One.String(), m.One.Size(), m.One.Cosize(), m.Extents
		c, _ := m.Canonical()
		r.Coalesced = c.String()
		if err == nil {
			r.Complement = comp.String()
		}
	}
	if words {
		wl, err := m.Words()
		if err != nil {
			return nil, settingf("Words", "{Words}: %s", err)
		}
		r.Words = wl.String()
	}
	for _, l := range m.Chain {
		r.Chain = append(r.Chain, CuteLevel{l.Name, l.Layout.String()})
	}
	return r, nil
}

// WhereIsElement is one element offset: padding, or the logical index stored there.
type WhereIsElement struct {
	Element int64   `json:"element"`
	Padding bool    `json:"padding"`
	Index   []int64 `json:"index,omitempty"`
}

// WhereIs is what a byte (Byte set) or an element offset of a buffer holds: a byte of a
// type narrower than 8 bits holds several elements.
type WhereIs struct {
	Shape       string           `json:"shape"`
	Byte        *int64           `json:"byte,omitempty"`
	ElementBits int              `json:"element_bits"`
	Elements    []WhereIsElement `json:"elements"`
}

// NewWhereIs reports what byte n (isByte) or element offset n of m's allocation holds.
func NewWhereIs(m algebra.Mapping, n int64, isByte bool) (*WhereIs, error) {
	name := map[bool]string{true: "Byte", false: "Element"}[isByte]
	if n < 0 {
		return nil, settingf(name, "bad {"+name+"} %d: not a non-negative number", n)
	}
	bits := int64(m.ElementBits)
	first, last := n, n
	if isByte {
		if size := (m.Alloc*bits + 7) / 8; n >= size {
			return nil, settingf(name, "{Byte} %d is outside the allocation of %d bytes", n, size)
		}
		first, last = n*8/bits, min((n*8+7)/bits, m.Alloc-1)
	} else if n >= m.Alloc {
		return nil, settingf(name, "{Element} %d is outside the allocation of %d elements", n, m.Alloc)
	}
	r := &WhereIs{Shape: m.Shape.String(), ElementBits: m.ElementBits}
	if isByte {
		r.Byte = &n
	}
	for e := first; e <= last; e++ {
		idx, ok, err := m.Index(e)
		if err != nil {
			return nil, err
		}
		if !ok {
			idx = nil
		}
		r.Elements = append(r.Elements, WhereIsElement{Element: e, Padding: !ok, Index: idx})
	}
	return r, nil
}

// Equal compares two layouts of one shape: SameMap when every element has the same
// offset under both, Equal when they also allocate the same; when the maps differ,
// the first element (row-major) whose offsets differ, if one was compared.
type Equal struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Equal   bool    `json:"equal"`
	SameMap bool    `json:"same_map"`
	AllocA  int64   `json:"alloc_a"`
	AllocB  int64   `json:"alloc_b"`
	Index   []int64 `json:"index,omitempty"`
	OffA    *int64  `json:"offset_a,omitempty"`
	OffB    *int64  `json:"offset_b,omitempty"`
}

// maxWalk bounds element-by-element comparisons.
const maxWalk = 1 << 26

// CompareLayouts compares a and b (see SamePair): by their coalesced forms when both
// are one layout, otherwise element by element (at most 2^26 elements).
func CompareLayouts(a, b algebra.Mapping) (*Equal, error) {
	if err := SamePair(a, b); err != nil {
		return nil, err
	}
	r := &Equal{A: a.Shape.String(), B: b.Shape.String(), AllocA: a.Alloc, AllocB: b.Alloc}
	ca, okA := a.Canonical()
	cb, okB := b.Canonical()
	r.SameMap = okA && okB && ca.Equal(cb)
	n := int64(1)
	for _, d := range a.Dims {
		n *= d // ≤ Alloc
	}
	if !r.SameMap && n <= maxWalk {
		if err := r.walk(a, b); err != nil {
			return nil, err
		}
	} else if !r.SameMap && !(okA && okB) {
		return nil, settingf("A", "%d elements: too many to compare a chain element by element", n)
	}
	r.Equal = r.SameMap && a.Alloc == b.Alloc
	return r, nil
}

// walk compares a and b element by element, recording the first that differs.
func (r *Equal) walk(a, b algebra.Mapping) error {
	idx := make([]int64, len(a.Dims))
	r.SameMap = true
	for {
		oa, err := a.Offset(idx)
		if err != nil {
			return err
		}
		ob, err := b.Offset(idx)
		if err != nil {
			return err
		}
		if oa != ob {
			r.SameMap, r.Index, r.OffA, r.OffB = false, slices.Clone(idx), &oa, &ob
			return nil
		}
		if !layout.NextIndex(idx, a.Dims) {
			return nil
		}
	}
}

// CopyMap is the copy map of a relayout from Src to Dst (Dst ∘ right_inverse(Src),
// coalesced), its longest common contiguous run, and the class of the copy.
type CopyMap struct {
	Src         string `json:"src"`
	Dst         string `json:"dst"`
	CopyMap     string `json:"copy_map"`
	Vector      int64  `json:"vector"`
	VectorBytes int64  `json:"vector_bytes"`
	Bitcast     bool   `json:"bitcast"`
	Class       string `json:"class"`
}

// NewCopyMap reports the copy from src to dst (see SamePair); both must be one layout
// on their exact dims, and src without holes.
func NewCopyMap(src, dst algebra.Mapping) (*CopyMap, error) {
	if err := SamePair(src, dst); err != nil {
		return nil, err
	}
	s, err := src.Exact()
	if err != nil {
		return nil, settingf("Src", "{Src}: %s", err)
	}
	d, err := dst.Exact()
	if err != nil {
		return nil, settingf("Dst", "{Dst}: %s", err)
	}
	r := &CopyMap{Src: src.Shape.String(), Dst: dst.Shape.String()}
	cm, err := algebra.CopyMap(src, dst)
	var de *algebra.DivisibilityError
	switch {
	case errors.As(err, &de):
		// Not one layout: the copy still exists, element by element.
		r.CopyMap, r.Vector, r.Class = "none: "+ErrorText(err), 1, "element shuffle"
	case errors.Is(err, algebra.ErrNotInjective):
		return nil, settingf("Src", "{Src} %s has holes: the copy map needs a source whose offsets are exactly [0, size)", src.Shape.String())
	case err != nil:
		return nil, err
	default:
		if err := r.classify(algebra.Coalesce(cm), s, d, src.Alloc == dst.Alloc); err != nil {
			return nil, err
		}
	}
	r.VectorBytes = r.Vector * int64(src.ElementBits) / 8
	return r, nil
}

// classify sets the copy map c's text, vector and class for layouts s and d.
func (r *CopyMap) classify(c, s, d algebra.Layout, sameAlloc bool) error {
	r.CopyMap = c.String()
	var err error
	if r.Vector, err = algebra.MaxCommonVector(d, s); err != nil {
		return err
	}
	identity := c.Equal(algebra.Leaf(s.Size(), 1)) || s.Size() == 1
	r.Bitcast = identity && sameAlloc
	switch {
	case r.Bitcast:
		r.Class = "bitcast"
	case identity:
		r.Class = "memcpy"
	case r.Vector > 1:
		r.Class = fmt.Sprintf("strided runs of %d elements", r.Vector)
	default:
		r.Class = "element shuffle"
	}
	return nil
}

// Blocks is how a block shape cuts a layout: the number of blocks, and per block the
// contiguous runs and their length; or Misaligned, the block dim that cuts a tile.
type Blocks struct {
	Shape       string  `json:"shape"`
	Block       []int64 `json:"block"`
	Blocks      int64   `json:"blocks,omitempty"`
	Runs        int64   `json:"runs,omitempty"`
	RunElements int64   `json:"run_elements,omitempty"`
	RunBytes    int64   `json:"run_bytes,omitempty"`
	Misaligned  string  `json:"misaligned,omitempty"`
}

// NewBlocks divides m by the block bl (one entry per dim, each dividing its dim), as
// CuTe's zipped_divide does.
func NewBlocks(m algebra.Mapping, bl []int64) (*Blocks, error) {
	if len(bl) != len(m.Dims) {
		return nil, settingf("Block", "{Block} has %d entries for %d dims", len(bl), len(m.Dims))
	}
	for k, b := range bl {
		if b <= 0 {
			return nil, settingf("Block", "{Block} entry %d is %d: want a positive size", k, b)
		}
	}
	l, err := m.Exact()
	if err != nil {
		return nil, settingf("Shape", "%s", err)
	}
	r := &Blocks{Shape: m.Shape.String(), Block: bl}
	tiles := make([]algebra.Layout, len(bl))
	for k, b := range bl {
		tiles[k] = algebra.Leaf(b, 1)
		if _, err := algebra.LogicalDivide(l.Mode(k), tiles[k]); err != nil {
			var de *algebra.DivisibilityError
			if !errors.As(err, &de) {
				return nil, err
			}
			r.Misaligned = fmt.Sprintf("block %d not aligned to tile %d (dim %d)", b, de.Have, k)
			return r, nil
		}
	}
	for k, b := range bl {
		if m.Dims[k]%b != 0 {
			return nil, settingf("Block", "{Block} %d does not divide dim %d (%d)", b, k, m.Dims[k])
		}
	}
	if len(bl) == 1 {
		l = algebra.MustNew(algebra.Tuple(l.Shape), algebra.Tuple(l.Stride))
	}
	z, err := algebra.ZippedDivide(l, tiles)
	if err != nil {
		return nil, err
	}
	r.Blocks = z.Mode(1).Size()
	r.RunElements, r.Runs = algebra.Runs(z.Mode(0))
	r.RunBytes = r.RunElements * int64(m.ElementBits) / 8
	return r, nil
}

// Padding is how many allocated elements hold no element, their share, the padded
// extents, and the complement layout that reaches them (absent for a chain or holes
// the complement cannot express).
type Padding struct {
	Shape      string  `json:"shape"`
	Alloc      int64   `json:"alloc"`
	Padding    int64   `json:"padding"`
	Fraction   float64 `json:"fraction"`
	Extents    []int64 `json:"extents,omitempty"`
	Complement string  `json:"complement,omitempty"`
	// Dims are the logical dims; NoComplement says why Complement is absent.
	Dims         []int64 `json:"-"`
	NoComplement error   `json:"-"`
}

// NewPadding reports m's padding.
func NewPadding(m algebra.Mapping) *Padding {
	r := &Padding{Shape: m.Shape.String(), Alloc: m.Alloc, Extents: m.Extents, Dims: m.Dims}
	comp, pad, err := m.Padding()
	r.Padding = pad
	r.Fraction = float64(pad) / float64(max(m.Alloc, 1))
	if err == nil {
		r.Complement = comp.String()
	}
	r.NoComplement = err
	return r
}
