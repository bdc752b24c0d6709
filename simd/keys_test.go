package simd

import "testing"

// TestLookupKeys checks that every set answers the same keys as the generic one, that a
// type to itself is its width's kernel, and that the transposes are there by width.
func TestLookupKeys(t *testing.T) {
	g := Generic()
	for _, k := range Available() {
		for from := range nDTypes {
			for to := range nDTypes {
				for _, c := range []struct {
					name      string
					have, gen bool
				}{
					{"Convert", k.Convert(from, to) != nil, g.Convert(from, to) != nil},
					{"Pack2", k.Pack2(from, to) != nil, g.Pack2(from, to) != nil},
					{"Unpack2", k.Unpack2(from, to) != nil, g.Unpack2(from, to) != nil},
					{"Pack4", k.Pack4(from, to) != nil, g.Pack4(from, to) != nil},
					{"Unpack4", k.Unpack4(from, to) != nil, g.Unpack4(from, to) != nil},
				} {
					if c.have != c.gen {
						t.Errorf("%s %s(%s, %s): %v, generic %v", k.Name, c.name, from, to, c.have, c.gen)
					}
				}
			}
		}
		if k.Pack2(BF16, BF16) == nil || k.Unpack2(F16, F16) == nil || k.Pack4(F8E5M2, F8E5M2) == nil {
			t.Errorf("%s: a type to itself has no packing", k.Name)
		}
		for _, w := range []int{1, 2, 4} {
			for s := range nStores {
				if k.Transpose(w, s) == nil {
					t.Errorf("%s: no transpose of width %d, stores %d", k.Name, w, s)
				}
			}
		}
		if k.Transpose(8, Ordinary) != nil || k.Transpose(4, nStores) != nil {
			t.Errorf("%s: a transpose for a width or stores that has none", k.Name)
		}
	}
	if n := countKeys(g); n != 16+3+2+7+7 {
		t.Errorf("generic set: %d keyed kernels, want 35", n)
	}
}

func countKeys(k *Kernels) int {
	n := 0
	for from := range nDTypes {
		for to := range nDTypes {
			for _, ok := range []bool{k.conv[from][to] != nil, k.pack2[from][to] != nil, k.unpack2[from][to] != nil, k.pack4[from][to] != nil, k.unpack4[from][to] != nil} {
				if ok {
					n++
				}
			}
		}
	}
	return n
}
