package algebra

import (
	"errors"
	"fmt"
	"sort"
)

// ErrNotComposable is wrapped by Compose's errors when a divisibility condition fails:
// no single layout equals the composed map.
var ErrNotComposable = errors.New("algebra: not composable")

// ErrNotInjective is wrapped by errors of operations that need distinct offsets.
var ErrNotInjective = errors.New("algebra: layout is not injective")

// DivisibilityError says which condition of composition (or complement) fails and on
// which numbers: Condition is "stride", "shape" or "disjointness" (two modes of b
// whose offset ranges overlap: Have is a stride below the end Need of another mode).
type DivisibilityError struct {
	Op, Condition string
	A, B          string // the two layouts
	Have, Need    int64  // the numbers that do not divide each other
}

func (e *DivisibilityError) Error() string {
	return fmt.Sprintf("algebra: %s %s ∘ %s: %s divisibility condition fails: %d and %d do not divide each other",
		e.Op, e.A, e.B, e.Condition, e.Have, e.Need)
}

// Unwrap returns ErrNotComposable.
func (e *DivisibilityError) Unwrap() error { return ErrNotComposable }

// InjectiveError says where a layout maps two coordinates to one offset.
type InjectiveError struct {
	Op, Layout string
	Reason     string
}

func (e *InjectiveError) Error() string {
	return fmt.Sprintf("algebra: %s of %s: %s", e.Op, e.Layout, e.Reason)
}

// Unwrap returns ErrNotInjective.
func (e *InjectiveError) Unwrap() error { return ErrNotInjective }

// Coalesce returns the flat layout with the fewest modes that maps every coordinate as l
// does: shape-1 modes are dropped and a mode whose stride is the previous mode's
// shape×stride merges into it.
func Coalesce(l Layout) Layout {
	sh, st := l.flat()
	var rs, rd []int64
	for i := range sh {
		switch {
		case sh[i] == 1:
		case len(rs) > 0 && extent(rs[len(rs)-1], rd[len(rd)-1]) == st[i]:
			rs[len(rs)-1] *= sh[i] // ≤ Size
		default:
			rs, rd = append(rs, sh[i]), append(rd, st[i])
		}
	}
	return fromFlat(rs, rd)
}

// CoalesceByMode coalesces each top-level mode of l on its own, keeping the rank.
func CoalesceByMode(l Layout) Layout {
	if l.Shape.IsInt() {
		return Coalesce(l)
	}
	ms := l.modes()
	for i, m := range ms {
		ms[i] = Coalesce(m)
	}
	return concat(ms...)
}

// Compose returns R = a ∘ b with R(c) = a(b(c)) for every coordinate c of b; where b(c)
// is past a's size, a is extended by the last mode of Coalesce(a) (as CuTe does). R has
// b's shape nesting. It checks both of CuTe's conditions on every mode of a that b's
// modes cross: the stride condition (a's mode shape and b's running stride divide one
// another) and the shape condition (a mode of b that spans several modes of a splits
// exactly). When a has more than one mode, b's modes must also reach disjoint offset
// ranges (else a sum of them can carry between a's modes), except modes that land in the
// last mode of Coalesce(a). When a condition fails the error is a *DivisibilityError
// rather than a layout that disagrees with the maps.
func Compose(a, b Layout) (Layout, error) {
	if err := a.Check(); err != nil {
		return Layout{}, err
	}
	if err := b.Check(); err != nil {
		return Layout{}, err
	}
	ca := Coalesce(a)
	if ca.Shape.Rank() > 1 {
		if err := checkDisjoint(a, b, ca); err != nil {
			return Layout{}, err
		}
	}
	return compose(ca, a, b)
}

// checkDisjoint requires b's modes (sorted by stride) to cover disjoint ranges of
// offsets, [d, d·n) each: then a is additive over them and composing mode by mode is
// exact. With overlapping modes a sum can carry from one mode of a into the next. Modes
// whose stride is a multiple of the product of ca's shapes but the last (ca = Coalesce(a))
// land in ca's last mode, where a is linear (a(x + k·M) = a(x) + k·a(M)); they are left
// out of the check.
func checkDisjoint(a, b, ca Layout) error {
	sh, _ := ca.flat()
	m := int64(1)
	for _, s := range sh[:len(sh)-1] {
		m *= s // ≤ Size(a)
	}
	var ms []struct{ n, d, place int64 }
	for _, x := range sortedModes(b) {
		if x.d%m != 0 {
			ms = append(ms, x)
		}
	}
	for i := 1; i < len(ms); i++ {
		if end := extent(ms[i-1].n, ms[i-1].d); end < 0 || ms[i].d < end {
			return &DivisibilityError{"compose", "disjointness", a.String(), b.String(), ms[i].d, end}
		}
	}
	return nil
}

func compose(ca, a, b Layout) (Layout, error) {
	if !b.Shape.IsInt() {
		ms := b.modes()
		for i, m := range ms {
			r, err := compose(ca, a, m)
			if err != nil {
				return Layout{}, err
			}
			ms[i] = r
		}
		return concat(ms...), nil
	}
	n, d := b.Shape.Value(), b.Stride.Value()
	if n == 1 {
		return Leaf(1, 0), nil
	}
	if d == 0 {
		return Leaf(n, 0), nil
	}
	ash, ast := ca.flat()
	var rs, rd []int64
	restN, restD := n, d
	for i := 0; i < len(ash)-1 && restN > 1; i++ {
		cur := ash[i]
		if cur%restD != 0 && restD%cur != 0 {
			return Layout{}, &DivisibilityError{"compose", "stride", a.String(), b.String(), cur, restD}
		}
		next := int64(1)
		if cur > restD {
			next = cur / restD
		}
		if next > 1 {
			nn := min(next, restN)
			if restN > next && restN%next != 0 {
				return Layout{}, &DivisibilityError{"compose", "shape", a.String(), b.String(), next, restN}
			}
			s, ok := mul(restD, ast[i])
			if !ok {
				return Layout{}, &OverflowError{"compose", "a stride of " + a.String() + " ∘ " + b.String()}
			}
			rs, rd = append(rs, nn), append(rd, s)
			restN /= nn
		}
		restD = ceilDiv(restD, cur)
	}
	if restN > 1 || len(rs) == 0 {
		s, ok := mul(restD, ast[len(ast)-1])
		if !ok {
			return Layout{}, &OverflowError{"compose", "a stride of " + a.String() + " ∘ " + b.String()}
		}
		rs, rd = append(rs, restN), append(rd, s)
	}
	r := fromFlat(rs, rd)
	if _, err := r.cosize(); err != nil {
		return Layout{}, &OverflowError{"compose", "the cosize of " + a.String() + " ∘ " + b.String()}
	}
	return r, nil
}

// sortedModes lists the flat modes of l with shape > 1 and stride > 0 by stride, then
// shape; each carries its colexicographic place (the product of the shapes before it).
func sortedModes(l Layout) []struct{ n, d, place int64 } {
	sh, st := l.flat()
	out := make([]struct{ n, d, place int64 }, 0, len(sh))
	place := int64(1)
	for i := range sh {
		if sh[i] > 1 && st[i] > 0 {
			out = append(out, struct{ n, d, place int64 }{sh[i], st[i], place})
		}
		place *= sh[i] // ≤ Size of a valid layout
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].n < out[j].n
	})
	return out
}

// Complement returns the layout C, sorted by stride, such that (l, C) is injective and
// its image covers [0, cotarget) with every offset l does not reach: the holes between
// l's modes and the rest up to cotarget. l's strides, sorted, must each be a multiple of
// the extent of the modes below them (else a *DivisibilityError).
func Complement(l Layout, cotarget int64) (Layout, error) {
	if err := l.Check(); err != nil {
		return Layout{}, err
	}
	var rs, rd []int64
	cur := int64(1)
	for _, m := range sortedModes(l) {
		if m.d%cur != 0 {
			return Layout{}, &DivisibilityError{"complement", "stride", l.String(), fmt.Sprint(cotarget), m.d, cur}
		}
		rs, rd = append(rs, m.d/cur), append(rd, cur)
		var ok bool
		if cur, ok = mul(m.n, m.d); !ok {
			return Layout{}, &OverflowError{"complement", "the extent of " + l.String()}
		}
	}
	rs, rd = append(rs, max(1, ceilDiv(max(cotarget, 0), cur))), append(rd, cur)
	r := fromFlat(rs, rd)
	if _, err := r.cosize(); err != nil {
		return Layout{}, &OverflowError{"complement", "the cosize of the complement of " + l.String()}
	}
	return Coalesce(r), nil
}

// RightInverse returns the largest layout R with l(R(i)) = i for 0 ≤ i < Size(R): R
// covers the contiguous offsets [0, Size(R)) that l reaches from 0 without a hole.
func RightInverse(l Layout) Layout {
	var rs, rd []int64
	cur := int64(1)
	for _, m := range sortedModes(l) {
		if m.d != cur {
			break
		}
		rs, rd = append(rs, m.n), append(rd, m.place)
		cur = extent(m.n, m.d)
	}
	return Coalesce(fromFlat(rs, rd))
}

// LeftInverse returns a layout R with R(l(c)) = c for every coordinate c of l; offsets
// that l does not reach map to coordinates whose l-offset differs from them. l must be
// injective: no stride-0 mode of shape > 1 and no two modes that overlap.
func LeftInverse(l Layout) (Layout, error) {
	c := Coalesce(l)
	sh, st := c.flat()
	for i := range sh {
		if sh[i] > 1 && st[i] == 0 {
			return Layout{}, &InjectiveError{"left inverse", l.String(), fmt.Sprintf("mode %d:0 maps %d coordinates to one offset", sh[i], sh[i])}
		}
	}
	comp, err := Complement(l, 1)
	if err != nil {
		return Layout{}, &InjectiveError{"left inverse", l.String(), err.Error()}
	}
	return RightInverse(concat(l, comp)), nil
}

// extent is n·d, the end of the offsets a mode n:d reaches, or -1 when it passes int64
// (no stride can equal it then).
func extent(n, d int64) int64 {
	e, ok := mul(n, d)
	if !ok {
		return -1
	}
	return e
}
