package algebra

import "fmt"

// LogicalDivide splits a by the tile b: the result's mode 0 is the tile (a ∘ b) and
// mode 1 the rest (a ∘ complement(b, Size(a))): a ∘ (b, complement(b, Size(a))).
func LogicalDivide(a, b Layout) (Layout, error) {
	if err := a.Check(); err != nil {
		return Layout{}, err
	}
	c, err := Complement(b, a.Size())
	if err != nil {
		return Layout{}, err
	}
	return Compose(a, concat(b, c))
}

// LogicalDivideModes divides a mode by mode: mode i of the result is
// LogicalDivide(a.Mode(i), tiler[i]); modes past the tiler are kept.
func LogicalDivideModes(a Layout, tiler []Layout) (Layout, error) {
	if len(tiler) > a.Rank() {
		return Layout{}, fmt.Errorf("algebra: tiler of %d modes for %s of rank %d", len(tiler), a, a.Rank())
	}
	ms := a.modes()
	for i, t := range tiler {
		r, err := LogicalDivide(ms[i], t)
		if err != nil {
			return Layout{}, fmt.Errorf("algebra: mode %d: %w", i, err)
		}
		ms[i] = r
	}
	return concat(ms...), nil
}

// ZippedDivide is LogicalDivideModes with the tiles gathered into mode 0 and the rests
// (then a's modes past the tiler) into mode 1: ((tile0,tile1,…),(rest0,rest1,…)).
func ZippedDivide(a Layout, tiler []Layout) (Layout, error) {
	r, err := LogicalDivideModes(a, tiler)
	if err != nil {
		return Layout{}, err
	}
	var tiles, rests []Layout
	for i, m := range r.modes() {
		if i < len(tiler) {
			tiles, rests = append(tiles, m.Mode(0)), append(rests, m.Mode(1))
		} else {
			rests = append(rests, m)
		}
	}
	return concat(concat(tiles...), concat(rests...)), nil
}

// TiledDivide is ZippedDivide with the rest modes unpacked: ((tile0,…),rest0,rest1,…).
func TiledDivide(a Layout, tiler []Layout) (Layout, error) {
	z, err := ZippedDivide(a, tiler)
	if err != nil {
		return Layout{}, err
	}
	return concat(append([]Layout{z.Mode(0)}, z.Mode(1).modes()...)...), nil
}

// LogicalProduct repeats the block a in the pattern b: (a, complement(a, Size(a)·Cosize(b)) ∘ b).
func LogicalProduct(a, b Layout) (Layout, error) {
	if err := a.Check(); err != nil {
		return Layout{}, err
	}
	if err := b.Check(); err != nil {
		return Layout{}, err
	}
	n, ok := mul(a.Size(), b.Cosize())
	if !ok {
		return Layout{}, &OverflowError{"logical product", "size(a)×cosize(b) of " + a.String() + ", " + b.String()}
	}
	c, err := Complement(a, n)
	if err != nil {
		return Layout{}, err
	}
	r, err := Compose(c, b)
	if err != nil {
		return Layout{}, err
	}
	return concat(a, r), nil
}

// BlockedProduct is the logical product zipped mode by mode, the block's mode first:
// mode i is (a_i, (complement(a) ∘ b)_i). Both are padded with 1:0 modes to one rank.
func BlockedProduct(a, b Layout) (Layout, error) { return zipProduct(a, b, false) }

// RakedProduct is BlockedProduct with the block's mode second in each mode:
// (( complement(a) ∘ b)_i, a_i): the block's elements interleave with the pattern's.
func RakedProduct(a, b Layout) (Layout, error) { return zipProduct(a, b, true) }

func zipProduct(a, b Layout, raked bool) (Layout, error) {
	r := max(a.Rank(), b.Rank())
	pa, pb := padRank(a, r), padRank(b, r)
	p, err := LogicalProduct(pa, pb)
	if err != nil {
		return Layout{}, err
	}
	ms := make([]Layout, r)
	for i := range ms {
		x, y := p.Mode(0).Mode(i), p.Mode(1).Mode(i)
		if raked {
			x, y = y, x
		}
		ms[i] = concat(x, y)
	}
	return concat(ms...), nil
}

// padRank returns l as a tuple of r modes, adding 1:0 modes.
func padRank(l Layout, r int) Layout {
	ms := l.modes()
	for len(ms) < r {
		ms = append(ms, Leaf(1, 0))
	}
	return concat(ms...)
}

// MaxCommonVector is the number of consecutive coordinates of b, from 0, whose offsets
// under a and under b are both contiguous: the length of the first run of the copy map
// a ∘ right_inverse(b) (1 when that run has stride other than 1).
func MaxCommonVector(a, b Layout) (int64, error) {
	common, _, err := commonRun(a, b)
	if err != nil {
		return 0, err
	}
	sh, st := common.flat()
	if st[0] == 1 {
		return sh[0], nil
	}
	return 1, nil
}

// MaxCommonLayout is the layout over b's coordinates of that common run:
// right_inverse(b) ∘ (n:1) for a run of n, and 1:0 when there is none.
func MaxCommonLayout(a, b Layout) (Layout, error) {
	common, inv, err := commonRun(a, b)
	if err != nil {
		return Layout{}, err
	}
	sh, st := common.flat()
	if st[0] != 1 {
		return Leaf(1, 0), nil
	}
	return Compose(inv, Leaf(sh[0], 1))
}

func commonRun(a, b Layout) (Layout, Layout, error) {
	if err := b.Check(); err != nil {
		return Layout{}, Layout{}, err
	}
	inv := RightInverse(b)
	c, err := Compose(a, inv)
	if err != nil {
		return Layout{}, Layout{}, err
	}
	return Coalesce(c), inv, nil
}

// Upcast views l, whose offsets count elements, in units of n elements (a word of n):
// a mode of stride d ≥ n gets stride d/n; a mode of stride d < n, n a multiple of d,
// spans n/d elements of a word and keeps Shape/(n/d) modes of stride 1. A stride that
// neither divides nor is a multiple of n, or a mode that splits a word, is an error.
func Upcast(l Layout, n int64) (Layout, error) {
	if n < 1 {
		return Layout{}, fmt.Errorf("algebra: upcast by %d", n)
	}
	if err := l.Check(); err != nil {
		return Layout{}, err
	}
	sh, st := l.flat()
	for i := range sh {
		s, d := sh[i], st[i]
		switch {
		case d == 0:
		case d >= n && d%n == 0:
			st[i] = d / n
		case d < n && n%d == 0 && (s%(n/d) == 0 || (n/d)%s == 0):
			sh[i], st[i] = max(1, s/(n/d)), 1
		default:
			return Layout{}, &DivisibilityError{"upcast", "stride", l.String(), fmt.Sprint(n), d, n}
		}
	}
	return Layout{unflatten(sh, l.Shape), unflatten(st, l.Stride)}, nil
}

// Downcast views l, whose offsets count units of n elements, in elements: modes of
// stride 1 get n times the shape, the others n times the stride.
func Downcast(l Layout, n int64) (Layout, error) {
	if n < 1 {
		return Layout{}, fmt.Errorf("algebra: downcast by %d", n)
	}
	if err := l.Check(); err != nil {
		return Layout{}, err
	}
	sh, st := l.flat()
	for i := range sh {
		var ok bool
		if st[i] == 1 {
			sh[i], ok = mul(sh[i], n)
		} else {
			st[i], ok = mul(st[i], n)
		}
		if !ok {
			return Layout{}, &OverflowError{"downcast", "mode " + fmt.Sprint(i) + " of " + l.String()}
		}
	}
	r := Layout{unflatten(sh, l.Shape), unflatten(st, l.Stride)}
	return r, r.Check()
}

// Runs describes l's offsets as runs of consecutive offsets: with l's modes sorted by
// stride, the modes from stride 1 that each start where the previous ends make one run of
// length; the rest repeat it count times (length·count = Size). length is 1 when no mode
// has stride 1.
func Runs(l Layout) (length, count int64) {
	length = 1
	for _, m := range sortedModes(l) {
		if m.d != length {
			break
		}
		length *= m.n // = m.n·m.d, the run's end: at most Size, as the run has distinct offsets
	}
	return length, l.Size() / length
}
