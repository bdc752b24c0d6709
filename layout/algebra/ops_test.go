package algebra

import (
	"errors"
	"testing"
)

// Modes of b that land in the last mode of Coalesce(a) (strides that are multiples of
// the product of a's other shapes) may overlap: a is linear there, so composing mode by
// mode is exact. Overlap below that is still refused.
func TestComposeOverlapInLastMode(t *testing.T) {
	a := MustNew(Tuple(Ints(2, 4), Int(4), Int(4)), Tuple(Ints(3, 2), Int(2), Int(8)))
	b := MustNew(Ints(4, 3), Ints(8, 8))
	r, err := Compose(a, b)
	if err != nil {
		t.Fatalf("Compose(%s, %s): %v", a, b, err)
	}
	ax := extended(a)
	if bad := mapDiff("A∘B", r, b, func(i int64) int64 { return ax(b.at(i)) }); bad != "" {
		t.Fatalf("Compose(%s, %s) = %s: %s", a, b, r, bad)
	}

	a = MustNew(Ints(4, 8), Ints(1, 10))
	b = MustNew(Ints(2, 2), Ints(2, 2))
	if r, err := Compose(a, b); !errors.Is(err, ErrNotComposable) {
		t.Fatalf("Compose(%s, %s) = %s, %v; want ErrNotComposable", a, b, r, err)
	}
}
