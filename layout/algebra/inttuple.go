package algebra

import (
	"strconv"
	"strings"
)

// IntTuple is an integer or a tuple of IntTuples: the nested shapes and strides of CuTe
// layouts. The zero value is the integer 0. IntTuples are values: operations never
// modify their arguments.
type IntTuple struct {
	v     int64
	elems []IntTuple
	tuple bool
}

// Int returns the integer v as an IntTuple.
func Int(v int64) IntTuple { return IntTuple{v: v} }

// Tuple returns the tuple of the given elements (the empty tuple when none).
func Tuple(elems ...IntTuple) IntTuple {
	return IntTuple{elems: append([]IntTuple(nil), elems...), tuple: true}
}

// Ints returns the flat tuple of the given integers.
func Ints(vs ...int64) IntTuple {
	t := IntTuple{tuple: true, elems: make([]IntTuple, len(vs))}
	for i, v := range vs {
		t.elems[i] = Int(v)
	}
	return t
}

// IsInt reports whether t is an integer rather than a tuple.
func (t IntTuple) IsInt() bool { return !t.tuple }

// Value is the integer of an integer IntTuple, and 0 for a tuple.
func (t IntTuple) Value() int64 { return t.v }

// Rank is the number of top-level elements of a tuple, and 1 for an integer.
func (t IntTuple) Rank() int {
	if !t.tuple {
		return 1
	}
	return len(t.elems)
}

// At is element i of a tuple; an integer's only element (i = 0) is itself.
func (t IntTuple) At(i int) IntTuple {
	if !t.tuple {
		return t
	}
	return t.elems[i]
}

// Flatten lists the integers of t in order (depth first).
func (t IntTuple) Flatten() []int64 {
	return t.appendFlat(nil)
}

func (t IntTuple) appendFlat(out []int64) []int64 {
	if !t.tuple {
		return append(out, t.v)
	}
	for _, e := range t.elems {
		out = e.appendFlat(out)
	}
	return out
}

// congruent reports whether a and b have the same nesting.
func congruent(a, b IntTuple) bool {
	if a.tuple != b.tuple {
		return false
	}
	if !a.tuple {
		return true
	}
	if len(a.elems) != len(b.elems) {
		return false
	}
	for i := range a.elems {
		if !congruent(a.elems[i], b.elems[i]) {
			return false
		}
	}
	return true
}

// Equal reports whether a and b have the same nesting and integers.
func (t IntTuple) Equal(u IntTuple) bool {
	if !congruent(t, u) {
		return false
	}
	a, b := t.Flatten(), u.Flatten()
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// String is CuTe's text: an integer, or `(a,b,…)`.
func (t IntTuple) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t IntTuple) write(b *strings.Builder) {
	if !t.tuple {
		b.WriteString(strconv.FormatInt(t.v, 10))
		return
	}
	b.WriteByte('(')
	for i, e := range t.elems {
		if i > 0 {
			b.WriteByte(',')
		}
		e.write(b)
	}
	b.WriteByte(')')
}

// unflatten rebuilds flat integers in the nesting of profile.
func unflatten(flat []int64, profile IntTuple) IntTuple {
	t, _ := unflattenAt(flat, profile)
	return t
}

func unflattenAt(flat []int64, profile IntTuple) (IntTuple, []int64) {
	if !profile.tuple {
		return Int(flat[0]), flat[1:]
	}
	out := IntTuple{tuple: true, elems: make([]IntTuple, len(profile.elems))}
	for i, e := range profile.elems {
		out.elems[i], flat = unflattenAt(flat, e)
	}
	return out, flat
}
