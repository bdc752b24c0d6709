package main

import (
	"flag"

	"github.com/tpulayout/tpulayout/report"
)

var cuteVerb = &verb{
	name:     "cute",
	synopsis: "SHAPE [--words] [--json]",
	summary:  "the layout as a CuTe layout (shape:stride), or the chain of levels and why",
	detail: `Cute prints SHAPE's layout in CuTe's notation, shape:stride, mapping each logical
index to its element offset: mode k is dim k, its sub-modes the digits of the index in
order of place (first fastest). It prints the coalesced form (mode by mode, clamped to
the dims: two layouts with the same coalesced form and allocation are the same bytes),
size, cosize (one past the largest offset), the padded extents when the layout is one
layout only on a padded domain (a dim not a multiple of its tile), the allocation in
elements and bytes, and the padding (allocated elements that hold no element) with its
complement layout. When no single layout exists (a later tile cuts a digit an earlier
one made), it prints "chain:" and the cut, then the levels that compose the map.
--words adds the view in 32-bit words of a type narrower than 32 bits.

With --json it prints one object: shape, element_bits, one (absent for a chain),
coalesced, reason (for a chain), size, cosize, extents, alloc, alloc_bytes, padding,
complement, words (with --words), chain (name and layout of each level).`,
	define: algebraDefine([]string{"SHAPE"}, func(fs *flag.FlagSet) algebraBuild {
		words := fs.Bool("words", false, "also print the layout in 32-bit words (packed types)")
		return func(read readLayouts) (algebraResult, error) {
			ms, err := read()
			if err != nil {
				return algebraResult{}, err
			}
			return textResult(report.NewCute(ms[0], *words))
		}
	}),
}
