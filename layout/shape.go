package layout

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Unbounded is the size XLA stores for an unbounded dynamic dimension, printed `?`.
const Unbounded int64 = math.MinInt64

// Combined is the tile entry XLA stores for a combined dimension, printed `*`:
// the dimension is merged into the next more minor one before tiling.
const Combined int64 = math.MinInt64

// Kind says what a Shape is: an array, a tuple, a buffer `b(…)`, a token or opaque.
type Kind uint8

const (
	Array Kind = iota
	Tuple
	Buffer
	TokenKind
	OpaqueKind
)

// Shape is an XLA shape: an array (dtype, dims, layout), or a tuple or buffer of shapes.
//
// Dims hold sizes; a bounded dynamic dimension `<=N` holds N with Dynamic[i] set, and an
// unbounded one `?` holds [Unbounded] with Dynamic[i] set. Dynamic is nil when every
// dimension is static.
type Shape struct {
	Kind     Kind
	DType    DType
	Dims     []int64
	Dynamic  []bool
	Layout   Layout
	Elements []Shape // tuple elements, or the one shape inside a buffer
}

// Layout is an XLA layout. The zero value with no MinorToMajor is the layout `{}`;
// [Shape] methods read a missing MinorToMajor on an array of rank > 0 as row-major.
type Layout struct {
	DimLevels    []DimLevel `json:",omitempty"` // D(…): how each dim is stored; sparse when one is not D
	MinorToMajor []int
	Tiles        []Tile
	TailPadding  int64 // L(n): the footprint is rounded up to a multiple; 0 or 1 means none
	IndexType    DType // #(t), sparse only; Invalid when unset
	PointerType  DType // *(t), sparse only; Invalid when unset
	ElementBits  int64 // E(n): bits per element when packed; 0 means the type's storage width
	MemorySpace  int64 // S(n)
	Splits       []SplitConfig
	Physical     *Shape // P(shape), sparse only
	PrefixBytes  int64  // M(n): dynamic-shape metadata bytes before the data
}

// Tile is one level of tiling, from its most-major entry to its most-minor; an entry
// may be [Combined].
type Tile []int64

// SplitConfig is one SC(dim:i,j,…) entry: Dim is a physical dimension (0 = majormost).
type SplitConfig struct {
	Dim     int64
	Indices []int64
}

// Rank is the number of dimensions of an array shape.
func (s Shape) Rank() int { return len(s.Dims) }

// IsDynamic reports whether dimension i is dynamic (`<=N` or `?`).
func (s Shape) IsDynamic(i int) bool { return i < len(s.Dynamic) && s.Dynamic[i] }

// NewShape returns a static array shape with the default row-major layout.
func NewShape(dt DType, dims ...int64) Shape {
	return Shape{DType: dt, Dims: append([]int64(nil), dims...), Layout: Layout{MinorToMajor: RowMajor(len(dims))}}
}

// RowMajor returns the minor_to_major of the default layout {n-1,…,0}.
func RowMajor(rank int) []int {
	m := make([]int, rank)
	for i := range m {
		m[i] = rank - 1 - i
	}
	return m
}

// LogicalElements is the product of the dims (bounded dynamic dims count at their bound).
func (s Shape) LogicalElements() int64 { return Elements(s.Dims) }

// WithLayout returns a copy of s with layout l.
func (s Shape) WithLayout(l Layout) Shape { s.Layout = l; return s }

// WithDType returns a copy of s with element type dt. Like XLA's ChangeElementType, it
// drops E(n) unless dt is a sub-byte type.
func (s Shape) WithDType(dt DType) Shape {
	s.DType = dt
	if !dt.IsSubByte() {
		s.Layout.ElementBits = 0
	}
	return s
}

// String prints the shape in XLA's canonical text form, layout included.
func (s Shape) String() string {
	var b strings.Builder
	s.print(&b)
	return b.String()
}

func (s Shape) print(b *strings.Builder) {
	switch s.Kind {
	case Tuple:
		b.WriteByte('(')
		for i, e := range s.Elements {
			if i > 0 {
				b.WriteString(", ")
				if i%5 == 0 {
					b.WriteString("/*index=" + strconv.Itoa(i) + "*/")
				}
			}
			e.print(b)
		}
		b.WriteByte(')')
		return
	case Buffer:
		b.WriteString("b(")
		if len(s.Elements) == 1 {
			s.Elements[0].print(b)
		}
		b.WriteByte(')')
		return
	case TokenKind:
		b.WriteString("token[]")
		return
	case OpaqueKind:
		b.WriteString("opaque[]")
		return
	}
	b.WriteString(s.DType.String())
	b.WriteByte('[')
	for i, d := range s.Dims {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case d == Unbounded:
			b.WriteByte('?')
		case s.IsDynamic(i):
			b.WriteString("<=" + strconv.FormatInt(d, 10))
		default:
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(']')
	l := s.Layout
	if l.MinorToMajor == nil && len(s.Dims) > 0 {
		l.MinorToMajor = RowMajor(len(s.Dims))
	}
	if ls := l.String(); len(s.Dims) > 0 || ls != "{}" {
		b.WriteString(ls)
	}
}

// String prints the layout in XLA's canonical form, attributes in the order D T L # * E S SC P M.
func (l Layout) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	attrs := b.Len()
	b.WriteByte(':')
	if len(l.DimLevels) > 0 {
		b.WriteString("D(")
		for i, d := range l.DimLevels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(d.String())
		}
		b.WriteByte(')')
	}
	if len(l.Tiles) > 0 {
		b.WriteByte('T')
		for _, t := range l.Tiles {
			b.WriteString(t.String())
		}
	}
	if l.TailPadding > 1 {
		b.WriteString("L(" + strconv.FormatInt(l.TailPadding, 10) + ")")
	}
	if l.IndexType != Invalid {
		b.WriteString("#(" + typeOrInvalid(l.IndexType) + ")")
	}
	if l.PointerType != Invalid {
		b.WriteString("*(" + typeOrInvalid(l.PointerType) + ")")
	}
	if l.ElementBits != 0 {
		b.WriteString("E(" + strconv.FormatInt(l.ElementBits, 10) + ")")
	}
	if l.MemorySpace != 0 {
		b.WriteString("S(" + strconv.FormatInt(l.MemorySpace, 10) + ")")
	}
	if len(l.Splits) > 0 {
		b.WriteString("SC")
		for _, sc := range l.Splits {
			b.WriteString("(" + strconv.FormatInt(sc.Dim, 10) + ":")
			for i, x := range sc.Indices {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatInt(x, 10))
			}
			b.WriteByte(')')
		}
	}
	if l.Physical != nil {
		b.WriteString("P(" + l.Physical.String() + ")")
	}
	if l.PrefixBytes > 0 {
		b.WriteString("M(" + strconv.FormatInt(l.PrefixBytes, 10) + ")")
	}
	s := b.String()
	if len(s) == attrs+1 { // no attributes: drop the ':'
		s = s[:attrs]
	}
	return s + "}"
}

func typeOrInvalid(d DType) string {
	if !d.IsInteger() {
		return "invalid"
	}
	return d.String()
}

// String prints the tile as `(a,b,…)`, combined dims as `*`.
func (t Tile) String() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		if d == Combined {
			b.WriteByte('*')
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Equal reports whether two layouts are equal field by field, as XLA's Layout::Equal
// (which leaves out PrefixBytes, and compares D(…) only when one of them is sparse).
func (l Layout) Equal(o Layout) bool {
	if (l.IsSparse() || o.IsSparse()) && !slices.Equal(l.DimLevels, o.DimLevels) {
		return false
	}
	if !slices.Equal(l.MinorToMajor, o.MinorToMajor) || len(l.Tiles) != len(o.Tiles) ||
		max(l.TailPadding, 1) != max(o.TailPadding, 1) || l.IndexType != o.IndexType ||
		l.PointerType != o.PointerType || l.ElementBits != o.ElementBits ||
		l.MemorySpace != o.MemorySpace || len(l.Splits) != len(o.Splits) ||
		(l.Physical == nil) != (o.Physical == nil) {
		return false
	}
	for i := range l.Tiles {
		if !slices.Equal(l.Tiles[i], o.Tiles[i]) {
			return false
		}
	}
	for i := range l.Splits {
		if l.Splits[i].Dim != o.Splits[i].Dim || !slices.Equal(l.Splits[i].Indices, o.Splits[i].Indices) {
			return false
		}
	}
	return l.Physical == nil || l.Physical.String() == o.Physical.String()
}
