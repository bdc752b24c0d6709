package algebra

import (
	"errors"
	"fmt"
	"strconv"
)

// Layout is a CuTe layout Shape:Stride: a function from coordinates to offsets. Shape
// and Stride have the same nesting; every shape integer is at least 1 and every stride
// at least 0. A 1-D coordinate c (0 ≤ c < Size) is split colexicographically over the
// shape (first mode fastest) and the offset is the sum of coordinate × stride.
type Layout struct {
	Shape, Stride IntTuple
}

// ErrOverflow is wrapped by every error of a result that does not fit int64.
var ErrOverflow = errors.New("algebra: int64 overflow")

// ErrInvalid is wrapped by errors about a layout that breaks Layout's rules.
var ErrInvalid = errors.New("algebra: invalid layout")

// OverflowError says which quantity of an operation overflowed int64.
type OverflowError struct {
	Op   string // the operation, e.g. "size", "compose"
	What string // the quantity
}

func (e *OverflowError) Error() string {
	return fmt.Sprintf("algebra: %s: %s overflows int64", e.Op, e.What)
}

// Unwrap returns ErrOverflow.
func (e *OverflowError) Unwrap() error { return ErrOverflow }

// InvalidError says why a layout is not valid.
type InvalidError struct {
	Layout string
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("algebra: invalid layout %s: %s", e.Layout, e.Reason)
}

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// New checks and returns the layout shape:stride: same nesting, shapes ≥ 1, strides ≥ 0,
// and a size and a cosize that fit int64.
func New(shape, stride IntTuple) (Layout, error) {
	l := Layout{shape, stride}
	return l, l.Check()
}

// Leaf is the one-mode layout n:d.
func Leaf(n, d int64) Layout { return Layout{Int(n), Int(d)} }

// MustNew is New for layouts known valid (tests, examples and constants); it panics on an
// invalid one.
func MustNew(shape, stride IntTuple) Layout {
	l, err := New(shape, stride)
	if err != nil {
		panic(err)
	}
	return l
}

// Check returns an error when l breaks the rules of Layout.
func (l Layout) Check() error {
	if !congruent(l.Shape, l.Stride) {
		return &InvalidError{l.String(), "shape and stride differ in nesting"}
	}
	sh, st := l.Shape.Flatten(), l.Stride.Flatten()
	for i := range sh {
		if sh[i] < 1 {
			return &InvalidError{l.String(), fmt.Sprintf("shape %d at mode %d is below 1", sh[i], i)}
		}
		if st[i] < 0 {
			return &InvalidError{l.String(), fmt.Sprintf("stride %d at mode %d is negative", st[i], i)}
		}
	}
	if _, err := l.size(); err != nil {
		return err
	}
	_, err := l.cosize()
	return err
}

// String is CuTe's text `shape:stride`.
func (l Layout) String() string { return l.Shape.String() + ":" + l.Stride.String() }

// Equal reports whether l and m have the same shape and stride (same nesting too).
func (l Layout) Equal(m Layout) bool { return l.Shape.Equal(m.Shape) && l.Stride.Equal(m.Stride) }

// Rank is the number of top-level modes.
func (l Layout) Rank() int { return l.Shape.Rank() }

// Mode is top-level mode i.
func (l Layout) Mode(i int) Layout { return Layout{l.Shape.At(i), l.Stride.At(i)} }

// Size is the number of coordinates: the product of the shape. Valid layouts (New) fit.
func (l Layout) Size() int64 { n, _ := l.size(); return n }

// Cosize is one past the largest offset, L(Size-1)+1. Valid layouts (New) fit.
func (l Layout) Cosize() int64 { n, _ := l.cosize(); return n }

func (l Layout) size() (int64, error) {
	n := int64(1)
	for _, s := range l.Shape.Flatten() {
		var ok bool
		if n, ok = mul(n, s); !ok {
			return 0, &OverflowError{"size", "the size of " + l.String()}
		}
	}
	return n, nil
}

func (l Layout) cosize() (int64, error) {
	sh, st := l.Shape.Flatten(), l.Stride.Flatten()
	c := int64(1)
	for i := range sh {
		t, ok := mul(sh[i]-1, st[i])
		if ok {
			c, ok = add(c, t)
		}
		if !ok {
			return 0, &OverflowError{"cosize", "the cosize of " + l.String()}
		}
	}
	return c, nil
}

// Eval is the offset of the 1-D coordinate c, 0 ≤ c < Size.
func (l Layout) Eval(c int64) (int64, error) {
	if c < 0 || c >= l.Size() {
		return 0, fmt.Errorf("algebra: coordinate %d outside the domain [0,%d) of %s", c, l.Size(), l.String())
	}
	return l.at(c), nil
}

// at evaluates a valid layout at 0 ≤ c < Size: no overflow is possible.
func (l Layout) at(c int64) int64 {
	sh, st := l.Shape.Flatten(), l.Stride.Flatten()
	off := int64(0)
	for i := range sh {
		off += c % sh[i] * st[i]
		c /= sh[i]
	}
	return off
}

// evalExtended evaluates l at any c ≥ 0, its last mode taking the unreduced rest as
// CuTe does (composition's meaning of a coordinate past Size).
func (l Layout) evalExtended(c int64) (int64, bool) {
	sh, st := l.Shape.Flatten(), l.Stride.Flatten()
	off := int64(0)
	for i := range sh {
		q := c % sh[i]
		if i == len(sh)-1 {
			q = c
		}
		t, ok := mul(q, st[i])
		if ok {
			off, ok = add(off, t)
		}
		if !ok {
			return 0, false
		}
		c /= sh[i]
	}
	return off, true
}

// EvalCoord is the offset of a coordinate with one entry per top-level mode, each
// 0 ≤ c[i] < Size of mode i, split colexicographically within its mode.
func (l Layout) EvalCoord(c []int64) (int64, error) {
	if len(c) != l.Rank() {
		return 0, fmt.Errorf("algebra: coordinate of %d entries for %s of rank %d", len(c), l.String(), l.Rank())
	}
	off := int64(0)
	for i, v := range c {
		m := l.Mode(i)
		if v < 0 || v >= m.Size() {
			return 0, fmt.Errorf("algebra: coordinate %d at mode %d outside [0,%d) of %s", v, i, m.Size(), l.String())
		}
		off += m.at(v) // sum of in-domain offsets ≤ Cosize-1
	}
	return off, nil
}

// flat returns the integers of shape and stride.
func (l Layout) flat() ([]int64, []int64) { return l.Shape.Flatten(), l.Stride.Flatten() }

// fromFlat is the layout of flat modes: an integer mode when there is one, else a tuple;
// no modes is 1:0.
func fromFlat(sh, st []int64) Layout {
	switch len(sh) {
	case 0:
		return Leaf(1, 0)
	case 1:
		return Leaf(sh[0], st[0])
	}
	return Layout{Ints(sh...), Ints(st...)}
}

// concat is the layout whose top-level modes are the given layouts.
func concat(ls ...Layout) Layout {
	sh := make([]IntTuple, len(ls))
	st := make([]IntTuple, len(ls))
	for i, l := range ls {
		sh[i], st[i] = l.Shape, l.Stride
	}
	return Layout{Tuple(sh...), Tuple(st...)}
}

// modes lists the top-level modes (an integer layout has one).
func (l Layout) modes() []Layout {
	out := make([]Layout, l.Rank())
	for i := range out {
		out[i] = l.Mode(i)
	}
	return out
}

// mul multiplies; ok is false on int64 overflow.
func mul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == -1<<63) || (b == -1 && a == -1<<63) {
		return 0, false
	}
	return p, true
}

// add adds; ok is false on int64 overflow.
func add(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b ≥ 1.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// ParseError says where the text of a layout or IntTuple is malformed.
type ParseError struct {
	Text string
	Pos  int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("algebra: parse %q at byte %d: %s", e.Text, e.Pos, e.Msg)
}

// Parse reads a layout `shape:stride`, e.g. `((8,2),(128,2)):((128,2048),(1,1024))`,
// and checks it as New does.
func Parse(s string) (Layout, error) {
	p := &tparser{s: s}
	sh, err := p.tuple()
	if err != nil {
		return Layout{}, err
	}
	if p.i >= len(s) || s[p.i] != ':' {
		return Layout{}, &ParseError{s, p.i, "expected ':'"}
	}
	p.i++
	st, err := p.tuple()
	if err != nil {
		return Layout{}, err
	}
	if p.i != len(s) {
		return Layout{}, &ParseError{s, p.i, "unexpected text after the stride"}
	}
	return New(sh, st)
}

type tparser struct {
	s string
	i int
}

func (p *tparser) tuple() (IntTuple, error) {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '(' {
		p.i++
		var elems []IntTuple
		for {
			e, err := p.tuple()
			if err != nil {
				return IntTuple{}, err
			}
			elems = append(elems, e)
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ')' {
				p.i++
				return Tuple(elems...), nil
			}
			return IntTuple{}, &ParseError{p.s, p.i, "expected ',' or ')'"}
		}
	}
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
	if err != nil {
		return IntTuple{}, &ParseError{p.s, p.i, "expected an integer or '(': " + numWords(err)}
	}
	p.i = j
	return Int(v), nil
}

// numWords is strconv's error for a number as a parse error quotes it: what was
// parsed and what is wrong with it, from the *strconv.NumError's fields.
func numWords(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return fmt.Sprintf("parsing %s: %v", strconv.Quote(ne.Num), ne.Err)
	}
	return err.Error()
}
