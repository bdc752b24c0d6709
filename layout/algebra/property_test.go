package algebra

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// trials is the number of random cases a property test runs: a few hundred by default,
// 10,000 with TPULAYOUT_LONG set, and fewer under -short.
func trials(def int) int {
	switch {
	case os.Getenv("TPULAYOUT_LONG") != "":
		return 10000
	case testing.Short():
		return def / 6
	}
	return def
}

var (
	dimChoices  = []int64{1, 2, 3, 4, 5, 7, 8, 12, 16, 20, 33, 64, 128, 130, 256, 300}
	tileChoices = []int64{1, 2, 3, 4, 8, 16, 32, 128, 256}
	subChoices  = []int64{1, 2, 3, 4, 8, 3, 5}
	dtypes      = []string{"f32", "bf16", "s8", "pred", "s4", "u2", "f64"}
	subE        = map[string][]int{"s4": {0, 4, 8}, "u2": {0, 2, 4}}
)

// randomXLA returns a random array shape text: rank 1–4, a random minor_to_major, 0–3
// tiles (the first possibly with `*`), sub-byte types with E(n), and L(n).
func randomXLA(r *rand.Rand) string {
	rank := 1 + r.IntN(4)
	dims := make([]string, rank)
	for i := range dims {
		dims[i] = fmt.Sprint(dimChoices[r.IntN(len(dimChoices))])
	}
	dt := dtypes[r.IntN(len(dtypes))]
	return dt + "[" + strings.Join(dims, ",") + "]" + randomLayoutText(r, dt, rank)
}

// randomLayoutText is a random layout `{…}` for an array of the given type and rank.
func randomLayoutText(r *rand.Rand, dt string, rank int) string {
	m2m := r.Perm(rank)
	ms := make([]string, rank)
	for i, d := range m2m {
		ms[i] = fmt.Sprint(d)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{%s", strings.Join(ms, ","))
	nt := r.IntN(4)
	if nt > 0 {
		b.WriteString(":")
	}
	for t := 0; t < nt; t++ {
		k := 1 + r.IntN(min(rank, 3))
		if t > 0 {
			k = 1 + r.IntN(2)
		}
		es := make([]string, k)
		for i := range es {
			switch {
			case t == 0 && i < k-1 && r.IntN(3) == 0:
				es[i] = "*"
			case t == 0:
				es[i] = fmt.Sprint(tileChoices[r.IntN(len(tileChoices))])
			default:
				es[i] = fmt.Sprint(subChoices[r.IntN(len(subChoices))])
			}
		}
		if t == 0 {
			b.WriteString("T")
		}
		fmt.Fprintf(&b, "(%s)", strings.Join(es, ","))
	}
	if r.IntN(5) == 0 {
		if nt == 0 {
			b.WriteString(":")
		}
		fmt.Fprintf(&b, "L(%d)", []int{2, 3, 1024}[r.IntN(3)])
	}
	if e := subE[dt]; e != nil {
		if n := e[r.IntN(len(e))]; n > 0 {
			if nt == 0 && !strings.Contains(b.String(), ":") {
				b.WriteString(":")
			}
			fmt.Fprintf(&b, "E(%d)", n)
		}
	}
	b.WriteString("}")
	return b.String()
}

// randomMappings yields n random layouts that compile with at most maxFoot elements.
func randomMappings(t *testing.T, seed uint64, n int, maxFoot int64, f func(text string, m Mapping, ix *layout.Indexer)) {
	r := rand.New(rand.NewPCG(seed, 42))
	done, tries := 0, 0
	for done < n {
		tries++
		if tries > 200*n {
			t.Fatalf("only %d of %d random layouts compiled in %d tries", done, n, tries)
		}
		text := randomXLA(r)
		s, err := layout.Parse(text)
		if err != nil {
			continue
		}
		ix, err := layout.Compile(s)
		if err != nil || ix.FootprintElements() > maxFoot {
			continue
		}
		m, err := FromXLA(s)
		if err != nil {
			t.Fatalf("FromXLA(%s): %v", text, err)
		}
		done++
		f(text, m, ix)
	}
}

// Every random layout's Mapping (one layout or chain) puts every element where
// package layout's index math does, and Index inverts it, padding included.
func TestPropertyMatchesLayoutIndexMath(t *testing.T) {
	n := trials(300)
	one, chainOnly, padded := 0, 0, 0
	r := rand.New(rand.NewPCG(7, 7))
	randomMappings(t, 1, n, 1<<14, func(text string, m Mapping, ix *layout.Indexer) {
		if m.Alloc != ix.FootprintElements() || m.ElementBits != ix.ElementBits() {
			t.Fatalf("%s: alloc %d bits %d, layout says %d %d", text, m.Alloc, m.ElementBits, ix.FootprintElements(), ix.ElementBits())
		}
		if m.One == nil {
			chainOnly++
		} else {
			one++
			if !slices.Equal(m.Extents, m.Dims) {
				padded++
			}
			if m.One.Cosize() > m.Alloc {
				t.Fatalf("%s: %s has cosize %d past alloc %d", text, m.One, m.One.Cosize(), m.Alloc)
			}
		}
		forIndices(r, m.Dims, func(idx []int64) {
			want := ix.Offset(idx)
			got, err := m.Offset(idx)
			gotChain, errChain := m.ChainOffset(idx)
			if err != nil || errChain != nil || got != want || gotChain != want {
				t.Fatalf("%s (%v, %s) at %v: offset %d %v, chain %d %v; layout says %d", text, m.One, m.Reason, idx, got, err, gotChain, errChain, want)
			}
			back, ok, err := m.Index(want)
			if err != nil || !ok || !slices.Equal(back, idx) {
				t.Fatalf("%s (%v) index of %d: %v %v %v, want %v", text, m.One, want, back, ok, err, idx)
			}
		})
		want := make([]int64, len(m.Dims))
		for range 64 {
			off := r.Int64N(m.Alloc + 2)
			wantOK := ix.Index(off, want)
			got, ok, err := m.Index(off)
			if err != nil || ok != wantOK || (ok && !slices.Equal(got, want)) {
				t.Fatalf("%s (%v) index of %d: %v %v %v; layout says %v %v", text, m.One, off, got, ok, err, want, wantOK)
			}
		}
	})
	t.Logf("%d layouts: %d one layout (%d on a padded domain), %d chain only", n, one, padded, chainOnly)
	if one == 0 || chainOnly == 0 || padded == 0 {
		t.Errorf("the generator missed a kind: %d one, %d padded, %d chain", one, padded, chainOnly)
	}
}

// Composing a layout's chain levels with Compose either fails with a divisibility
// error or gives a layout that agrees with the element-by-element map: never a wrong
// one (pycute's failure on chain-only layouts, design note §2).
func TestPropertyComposedChain(t *testing.T) {
	n := trials(300)
	ok, refused := 0, 0
	r := rand.New(rand.NewPCG(8, 8))
	randomMappings(t, 2, n, 1<<15, func(text string, m Mapping, ix *layout.Indexer) {
		c, err := composeChain(m.Chain)
		if err != nil {
			if !errors.Is(err, ErrNotComposable) {
				t.Fatalf("%s: compose of the chain: %v", text, err)
			}
			refused++
			return
		}
		ok++
		forIndices(r, m.Dims, func(idx []int64) {
			want := ix.Offset(idx)
			got, err := c.EvalCoord(idx)
			if err != nil || got != want {
				t.Fatalf("%s: composed chain %s at %v gives %d (%v), layout says %d", text, c, idx, got, err, want)
			}
		})
	})
	t.Logf("%d chains: %d composed, %d refused", n, ok, refused)
	if ok == 0 || refused == 0 {
		t.Errorf("the generator missed a kind: %d composed, %d refused", ok, refused)
	}
}

// forIndices calls f on every index of dims when there are at most 2048, else on 2048
// random ones (the first and the last among them).
func forIndices(r *rand.Rand, dims []int64, f func([]int64)) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	idx := make([]int64, len(dims))
	if n <= 2048 {
		for {
			f(idx)
			if !layout.NextIndex(idx, dims) {
				return
			}
		}
	}
	for i := range 2048 {
		for k, d := range dims {
			switch i {
			case 0:
				idx[k] = 0
			case 1:
				idx[k] = d - 1
			default:
				idx[k] = r.Int64N(d)
			}
		}
		f(idx)
	}
}

// randomLayout is a random valid layout of 1–4 modes, nested at random, with small
// shapes and strides that are often products of the shapes (so that many compose).
func randomLayout(r *rand.Rand) Layout {
	k := 1 + r.IntN(4)
	sh := make([]int64, k)
	st := make([]int64, k)
	acc := int64(1)
	for i := range sh {
		sh[i] = []int64{1, 2, 3, 4, 6, 8}[r.IntN(6)]
		switch r.IntN(4) {
		case 0:
			st[i] = int64(r.IntN(10))
		case 1:
			st[i] = acc * int64(1+r.IntN(3))
		default:
			st[i] = acc
		}
		acc *= sh[i]
	}
	if k == 1 {
		return Leaf(sh[0], st[0])
	}
	if k >= 3 && r.IntN(2) == 0 {
		return Layout{Tuple(Ints(sh[:2]...), Ints(sh[2:]...)), Tuple(Ints(st[:2]...), Ints(st[2:]...))}
	}
	return Layout{Ints(sh...), Ints(st...)}
}

// checkCompose checks Compose(a, b) against the maps composed element by element; it
// returns whether Compose gave a layout.
func checkCompose(t *testing.T, a, b Layout) bool {
	t.Helper()
	c, err := Compose(a, b)
	if err != nil {
		var de *DivisibilityError
		var oe *OverflowError
		if !errors.As(err, &de) && !errors.As(err, &oe) && !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s ∘ %s: untyped error %v", a, b, err)
		}
		return false
	}
	if c.Size() != b.Size() || !congruentProfile(c.Shape, b.Shape) {
		t.Fatalf("%s ∘ %s = %s: size or nesting differs from b", a, b, c)
	}
	ca := Coalesce(a)
	for x := int64(0); x < b.Size(); x++ {
		want, ok := ca.evalExtended(b.at(x))
		if y := b.at(x); y < a.Size() {
			want, ok = a.at(y), true
		}
		if !ok || c.at(x) != want {
			t.Fatalf("%s ∘ %s = %s: at %d gives %d, the maps give %d", a, b, c, x, c.at(x), want)
		}
	}
	return true
}

// congruentProfile is congruence up to b's integer modes becoming tuples in c.
func congruentProfile(c, b IntTuple) bool {
	if b.IsInt() {
		return true
	}
	if c.IsInt() || c.Rank() != b.Rank() {
		return false
	}
	for i := 0; i < b.Rank(); i++ {
		if !congruentProfile(c.At(i), b.At(i)) {
			return false
		}
	}
	return true
}

func TestPropertyCompose(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	n := trials(3000)
	ok := 0
	for range n {
		if checkCompose(t, randomLayout(r), randomLayout(r)) {
			ok++
		}
	}
	t.Logf("%d of %d compositions gave a layout", ok, n)
	if ok < n/10 || ok == n {
		t.Errorf("%d of %d compositions gave a layout: the generator does not exercise both outcomes", ok, n)
	}
}

// Complement, right and left inverse keep their contracts on random layouts.
func TestPropertyInverses(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	n := trials(3000)
	injective := 0
	for range n {
		l := randomLayout(r)
		ri := RightInverse(l)
		for i := int64(0); i < ri.Size(); i++ {
			if got, _ := l.evalExtended(ri.at(i)); ri.at(i) >= l.Size() || got != i {
				t.Fatalf("right inverse %s of %s: at %d gives coordinate %d → %d", ri, l, i, ri.at(i), got)
			}
		}
		li, err := LeftInverse(l)
		if err != nil {
			if !errors.Is(err, ErrNotInjective) {
				t.Fatalf("left inverse of %s: %v", l, err)
			}
			continue
		}
		injective++
		for c := int64(0); c < l.Size(); c++ {
			if got, _ := li.evalExtended(l.at(c)); got != c {
				t.Fatalf("left inverse %s of %s: %d → %d → %d", li, l, c, l.at(c), got)
			}
		}
		comp, err := Complement(l, 2*l.Cosize())
		if err != nil {
			t.Fatalf("complement of injective %s: %v", l, err)
		}
		seen := map[int64]bool{}
		both := concat(l, comp)
		for c := int64(0); c < both.Size(); c++ {
			o := both.at(c)
			if seen[o] {
				t.Fatalf("(%s, complement %s) maps two coordinates to %d", l, comp, o)
			}
			seen[o] = true
		}
		if both.Cosize() < 2*l.Cosize() {
			t.Fatalf("complement %s of %s does not reach %d", comp, l, 2*l.Cosize())
		}
	}
	if injective == 0 || injective == n {
		t.Errorf("%d of %d random layouts injective", injective, n)
	}
}

// Every error of the package is typed: overflow is reported, not wrapped around.
func TestOverflowIsAnError(t *testing.T) {
	_, err := New(Ints(1<<32, 1<<32), Ints(1, 1<<32))
	if !errors.Is(err, ErrOverflow) {
		t.Fatalf("New of a size past int64: %v", err)
	}
	_, err = Compose(MustNew(Ints(2, 2), Ints(1, 1<<61)), Leaf(4, 1))
	if err != nil && !errors.Is(err, ErrOverflow) {
		t.Fatalf("compose: %v", err)
	}
	_, err = Downcast(Leaf(4, 1<<62), 4)
	if !errors.Is(err, ErrOverflow) {
		t.Fatalf("downcast past int64: %v", err)
	}
	_, err = LogicalProduct(Leaf(1<<40, 1), Leaf(1<<30, 1))
	if !errors.Is(err, ErrOverflow) {
		t.Fatalf("logical product past int64: %v", err)
	}
}

// CopyMap sends each source offset to the destination offset of the same element, for
// random pairs of layouts of one shape; when it is not one layout it says so by a
// divisibility error, and a source with holes by ErrNotInjective.
func TestPropertyCopyMap(t *testing.T) {
	n := trials(300)
	r := rand.New(rand.NewPCG(9, 9))
	made, shuffles := 0, 0
	randomMappings(t, 5, n, 1<<14, func(text string, src Mapping, ix *layout.Indexer) {
		dims := make([]string, len(src.Dims))
		for k, d := range src.Dims {
			dims[k] = fmt.Sprint(d)
		}
		dt := src.Shape.DType.String()
		sh, err := layout.Parse(dt + "[" + strings.Join(dims, ",") + "]" + randomLayoutText(r, dt, len(dims)))
		if err != nil {
			return
		}
		dst, err := FromXLA(sh)
		if err != nil || dst.ElementBits != src.ElementBits {
			return
		}
		cm, err := CopyMap(src, dst)
		var de *DivisibilityError
		switch {
		case errors.As(err, &de):
			shuffles++
			return
		case errors.Is(err, ErrNotInjective) || errors.Is(err, ErrNotOne):
			return
		case err != nil:
			t.Fatalf("%s → %s: %v", text, sh, err)
		}
		made++
		forIndices(r, src.Dims, func(idx []int64) {
			so, _ := src.Offset(idx)
			do, _ := dst.Offset(idx)
			if got, err := cm.Eval(so); err != nil || got != do {
				t.Fatalf("%s → %s: copy map %s sends %d to %d (%v), element %v is at %d", text, sh, cm, so, got, err, idx, do)
			}
		})
	})
	t.Logf("%d pairs: %d copy maps, %d not one layout", n, made, shuffles)
	if made == 0 {
		t.Errorf("no pair gave a copy map")
	}
}
