package buffer

import (
	"fmt"
	"math"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// CompareOptions sets how [Compare] matches elements. The zero value asks for
// bit-exact equality in the narrower of the two types (any NaN matching any NaN).
type CompareOptions struct {
	// In is the type both sides are converted to (round to nearest even) before they are
	// compared. The default, layout.Invalid, is the "compare in the narrower dtype" rule:
	// the type itself when both sides have the same one; for two float types the one
	// with fewer bits (then fewer significand bits: bf16 rather than f16), so that an
	// f32 reference checked against a bf16 result is first rounded to bf16; and f64 (by
	// value) when an integer or pred is compared with a different type. Set In to
	// layout.F64 to compare floats by value without rounding either side.
	In layout.DType

	// An element that is not bit-identical (in type In) still matches when it is within
	// ULP units in the last place of type In (for integer types: ULP apart in value),
	// or when |actual-expected| <= Abs + Rel*|expected|. Zero values disable a test.
	// NaN never matches a number, and infinities only match themselves.
	ULP uint64
	Abs float64
	Rel float64

	// NaNBits makes NaNs match only NaNs with the same bits; by default any NaN matches
	// any NaN.
	NaNBits bool

	// MaxMismatches is how many mismatches are recorded in CompareResult.First:
	// 0 means 10, a negative value none.
	MaxMismatches int
}

// Mismatch is one element that did not match.
type Mismatch struct {
	Index            []int64 // logical index
	Expected, Actual float64 // values in the comparison type
	ExpectedBits     uint64  // raw bits as stored in the expected buffer
	ActualBits       uint64  // raw bits as stored in the actual buffer
	ULP              uint64  // distance in units in the last place of the comparison type
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%v: expected %g (%#x), actual %g (%#x)", m.Index, m.Expected, m.ExpectedBits, m.Actual, m.ActualBits)
}

// CompareResult summarises a comparison.
type CompareResult struct {
	In         layout.DType // the comparison type
	Elements   int64        // logical elements compared
	Identical  int64        // equal bits in the comparison type (or both NaN unless NaNBits)
	Within     int64        // not identical but within tolerance
	Mismatches int64        // neither

	// NaNMismatches counts the mismatches where one side is NaN and the other is not:
	// their error is not a number, so MaxAbs and MaxULP leave them out.
	NaNMismatches int64
	// NaNBitsDiffer counts the elements NaN on both sides with different bits in the
	// comparison type: Identical unless NaNBits, but a sign of another NaN encoding.
	NaNBitsDiffer int64
	// SignedZeros counts the float elements that differ only in the sign of a zero
	// (-0 against +0): not identical, but 0 apart in value and in ulps.
	SignedZeros int64
	// For floats, the elements that are not identical (NaNs left out) whose actual value
	// is nearer zero than the expected one, and those farther from it: errors all
	// toward zero and at most 1 ulp are the profile of truncation.
	TowardZero, AwayFromZero int64

	// The worst errors over all elements that are not identical (NaNs left out), with
	// where they occur (nil when there is none).
	MaxAbs      float64
	MaxAbsIndex []int64
	MaxRel      float64 // relative to |expected|; +Inf where expected is 0
	MaxRelIndex []int64
	MaxULP      uint64
	MaxULPIndex []int64

	First []Mismatch // the first mismatches in row-major order
}

// OK reports whether every element matched.
func (r *CompareResult) OK() bool { return r.Mismatches == 0 }

// precision is the significand width (with the implicit bit) of a float type.
func precision(dt layout.DType) int {
	switch dt {
	case layout.F32:
		return 24
	case layout.F64:
		return 53
	case layout.F8E8M0FNU:
		return 1
	}
	if f, ok := minifloatOf(dt); ok {
		return int(f.mbits) + 1
	}
	return 64
}

// CompareType returns the type [Compare] converts both sides to by default.
func CompareType(expected, actual layout.DType) layout.DType {
	switch {
	case expected == actual:
		return expected
	case expected.IsFloat() && actual.IsFloat():
		eb, ab := expected.Bits(), actual.Bits()
		if eb != ab {
			if eb < ab {
				return expected
			}
			return actual
		}
		if precision(expected) < precision(actual) {
			return expected
		}
		return actual
	}
	return layout.F64
}

// Compare compares two buffers element by element over their logical indices; they
// must have the same logical dims but may differ in layout and type. Each element is
// read from both (padding is ignored), converted to the comparison type (see
// [CompareOptions.In]) and matched as the options say. It allocates only for the
// result; it visits tens of millions of elements per second. The pages of a mapped
// buffer leave the resident set as they are compared (see [Buffer.ReleasePages]), so
// that comparing large mapped files keeps resident memory flat when both are read in
// about their storage order.
func Compare(expected, actual *Buffer, opts CompareOptions) (*CompareResult, error) {
	in, err := compareIn(expected, actual, opts)
	if err != nil {
		return nil, err
	}
	r := &CompareResult{In: in, Elements: expected.Len()}
	if r.Elements == 0 {
		return r, nil
	}
	t := newTally(r, opts, len(expected.dims))
	compareRows(expected, actual, t)
	t.finish()
	return r, nil
}

// compareIn checks that two buffers can be compared and returns the comparison type.
func compareIn(expected, actual *Buffer, opts CompareOptions) (layout.DType, error) {
	if !slices.Equal(expected.dims, actual.dims) {
		return layout.Invalid, fmt.Errorf("%w: compare: dims %v and %v differ", ErrShape, expected.dims, actual.dims)
	}
	edt, adt := expected.dt, actual.dt
	if !isReal(edt) || !isReal(adt) {
		return layout.Invalid, fmt.Errorf("%w: compare: %v against %v (only real types)", ErrDType, edt, adt)
	}
	in := opts.In
	if in == layout.Invalid {
		return CompareType(edt, adt), nil
	}
	if !isReal(in) {
		return layout.Invalid, fmt.Errorf("%w: compare in %v", ErrDType, in)
	}
	return in, nil
}

// compareRows visits every logical index of two buffers of the same dims in row-major
// order, a row (the last dimension) at a time, reading offsets from the row tables where
// the layouts allow it. It counts the elements identical in the comparison type itself
// and hands the others to the tally. Pages of mapped buffers are released row by row.
func compareRows(expected, actual *Buffer, t *tally) {
	r, in := t.r, t.r.In
	rank := len(expected.dims)
	idx := make([]int64, rank)
	eix, aix := expected.ix, actual.ix
	etab, atab := expected.rowTable(), actual.rowTable()
	econv, aconv := converter(in, expected.dt), converter(in, actual.dt)
	n := int64(1)
	if rank > 0 {
		n = expected.dims[rank-1]
	}
	ewin, awin := newPageWindow(expected), newPageWindow(actual)
	emin, emax := spanOf(etab)
	amin, amax := spanOf(atab)
	for {
		var ebase, abase int64
		if rank > 0 {
			idx[rank-1] = 0
		}
		if etab != nil {
			ebase = eix.Offset(idx)
		}
		if atab != nil {
			abase = aix.Offset(idx)
		}
		for j := int64(0); j < n; j++ {
			if rank > 0 {
				idx[rank-1] = j
			}
			var eo, ao int64
			if etab != nil {
				eo = ebase + etab[j]
			} else {
				eo = eix.Offset(idx)
			}
			if atab != nil {
				ao = abase + atab[j]
			} else {
				ao = aix.Offset(idx)
			}
			eb := expected.BitsAt(eo)
			ab := actual.BitsAt(ao)
			ec, ac := eb, ab
			if econv != nil {
				ec = econv(eb)
			}
			if aconv != nil {
				ac = aconv(ab)
			}
			if ec == ac {
				r.Identical++
			} else {
				t.differ(idx, eb, ab, ec, ac)
			}
		}
		if etab != nil {
			ewin.add(ebase+emin, ebase+emax, n)
		} else {
			ewin.addAll(n)
		}
		if atab != nil {
			awin.add(abase+amin, abase+amax, n)
		} else {
			awin.addAll(n)
		}
		if rank == 0 || !layout.NextIndex(idx[:rank-1], expected.dims[:rank-1]) {
			break
		}
	}
	ewin.release()
	awin.release()
}

// tally classifies the elements of a comparison that are not identical and keeps the
// worst errors with where they occur.
type tally struct {
	r        *CompareResult
	opts     CompareOptions
	maxFirst int  // how many mismatches to record
	tol      bool // Abs or Rel is set
	isFloat  bool // the comparison type is a float type
	inBits   int  // its width

	absIdx, relIdx, ulpIdx []int64
	haveWorst              bool // a not-identical number pair was seen
}

func newTally(r *CompareResult, opts CompareOptions, rank int) *tally {
	maxFirst := opts.MaxMismatches
	if maxFirst == 0 {
		maxFirst = 10
	}
	return &tally{
		r: r, opts: opts, maxFirst: maxFirst,
		tol:     opts.Abs > 0 || opts.Rel > 0,
		isFloat: r.In.IsFloat(), inBits: r.In.Bits(),
		absIdx: make([]int64, rank), relIdx: make([]int64, rank), ulpIdx: make([]int64, rank),
	}
}

// differ takes one element at idx whose bits in the comparison type, ec and ac, differ
// (eb and ab as stored): NaNs on both sides, a NaN against a number, or two numbers,
// whose direction it counts and whose error it measures, keeps if it is the worst and
// checks against the tolerance.
func (t *tally) differ(idx []int64, eb, ab, ec, ac uint64) {
	r, in, opts := t.r, t.r.In, &t.opts
	ev, av := valueOf(in, ec), valueOf(in, ac)
	enan, anan := math.IsNaN(ev), math.IsNaN(av)
	switch {
	case enan && anan:
		r.NaNBitsDiffer++
		if !opts.NaNBits {
			r.Identical++
		} else {
			r.Mismatches++
			r.record(t.maxFirst, idx, ev, av, eb, ab, 0)
		}
		return
	case enan || anan:
		r.Mismatches++
		r.NaNMismatches++
		r.record(t.maxFirst, idx, ev, av, eb, ab, 0)
		return
	}
	d := math.Abs(av - ev)
	if math.IsNaN(d) { // Inf - Inf of the same sign cannot happen (bits differ)
		d = math.Inf(1)
	}
	rel := math.Inf(1)
	if ev != 0 {
		rel = d / math.Abs(ev)
	} else if d == 0 {
		rel = 0
	}
	if t.isFloat {
		if av == 0 && ev == 0 {
			r.SignedZeros++
		}
		if math.Abs(av) < math.Abs(ev) {
			r.TowardZero++
		} else if math.Abs(av) > math.Abs(ev) {
			r.AwayFromZero++
		}
	}
	var u uint64
	if t.isFloat && in != layout.F8E8M0FNU {
		u = ulpDistance(ec, ac, t.inBits)
	} else {
		u = intDistance(in, ec, ac)
	}
	t.worst(idx, d, rel, u)
	inf := math.IsInf(ev, 0) || math.IsInf(av, 0)
	if !inf && (opts.ULP > 0 && u <= opts.ULP || t.tol && d <= opts.Abs+opts.Rel*math.Abs(ev)) {
		r.Within++
	} else {
		r.Mismatches++
		r.record(t.maxFirst, idx, ev, av, eb, ab, u)
	}
}

// worst keeps the greatest absolute, relative and ulp errors seen, each with the first
// index where it occurs.
func (t *tally) worst(idx []int64, d, rel float64, u uint64) {
	r, first := t.r, !t.haveWorst
	t.haveWorst = true
	if first || d > r.MaxAbs {
		r.MaxAbs = d
		copy(t.absIdx, idx)
	}
	if first || rel > r.MaxRel {
		r.MaxRel = rel
		copy(t.relIdx, idx)
	}
	if first || u > r.MaxULP {
		r.MaxULP = u
		copy(t.ulpIdx, idx)
	}
}

// finish sets the indices of the worst errors, when there are any.
func (t *tally) finish() {
	if t.haveWorst {
		t.r.MaxAbsIndex, t.r.MaxRelIndex, t.r.MaxULPIndex = t.absIdx, t.relIdx, t.ulpIdx
	}
}

func (r *CompareResult) record(maxFirst int, idx []int64, ev, av float64, eb, ab, u uint64) {
	if len(r.First) >= maxFirst {
		return
	}
	r.First = append(r.First, Mismatch{Index: slices.Clone(idx), Expected: ev, Actual: av, ExpectedBits: eb, ActualBits: ab, ULP: u})
}

// ulpDistance counts the representable values between two floats of width w given by
// their bits (sign-magnitude mapped onto a line, so +0 and -0 are 0 apart).
func ulpDistance(a, b uint64, w int) uint64 {
	ka, kb := orderedKey(a, w), orderedKey(b, w)
	if ka >= kb {
		return uint64(ka) - uint64(kb)
	}
	return uint64(kb) - uint64(ka)
}

func orderedKey(b uint64, w int) int64 {
	sign := uint64(1) << uint(w-1)
	m := int64(b &^ sign & mask(w))
	if b&sign != 0 {
		return -m
	}
	return m
}

// intDistance is |a-b| for integer bits of type dt (and unsigned float encodings).
func intDistance(dt layout.DType, a, b uint64) uint64 {
	if dt.IsSigned() {
		x, y := signExtend(a, dt.Bits()), signExtend(b, dt.Bits())
		if x >= y {
			return uint64(x) - uint64(y)
		}
		return uint64(y) - uint64(x)
	}
	if a >= b {
		return a - b
	}
	return b - a
}

// rowTableMax bounds the length of the last dimension for which rowTable builds a table.
const rowTableMax = 1 << 16

// rowTable returns, when the layout allows it, the element offsets along the last
// dimension relative to its index 0: Offset(idx) = Offset(idx with last = 0) + tab[last].
// That holds whenever the layout is [layout.Indexer.Separable]. It returns nil otherwise,
// or for rank 0 or a very long last dimension.
func (b *Buffer) rowTable() []int64 {
	rank := len(b.dims)
	if rank == 0 || b.dims[rank-1] > rowTableMax || b.dims[rank-1] == 0 {
		return nil
	}
	if !b.ix.Separable() {
		return nil
	}
	return b.ix.DimOffsets(rank - 1)
}

// spanOf returns the least and the greatest offset of a row table (0, 0 for none).
func spanOf(tab []int64) (lo, hi int64) {
	if len(tab) == 0 {
		return 0, 0
	}
	return slices.Min(tab), slices.Max(tab)
}

// converter returns a function converting src bits to dst bits, nil for the identity:
// specialised for the frequent pairs, [ConvertElement] otherwise.
func converter(dst, src layout.DType) func(uint64) uint64 {
	switch {
	case dst == src:
		return nil
	case dst == layout.BF16 && src == layout.F32:
		return func(b uint64) uint64 { return uint64(simd.F32ToBF16Bits(uint32(b))) }
	case dst == layout.F16 && src == layout.F32:
		return func(b uint64) uint64 { return uint64(simd.F32ToF16Bits(uint32(b))) }
	case dst == layout.F32 && src == layout.BF16:
		return func(b uint64) uint64 { return uint64(simd.BF16BitsToF32(uint16(b))) }
	case src.Bits() <= 8:
		// Byte-wide and sub-byte sources (s8, s4, pred, the f8 formats): a table of
		// ConvertElement's results, a few times faster than calling it.
		t := make([]uint64, 1<<src.Bits())
		for b := range t {
			t[b] = ConvertElement(dst, src, uint64(b))
		}
		return func(b uint64) uint64 { return t[b&uint64(len(t)-1)] }
	}
	return func(b uint64) uint64 { return ConvertElement(dst, src, b) }
}
