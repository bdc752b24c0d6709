package main

import (
	"flag"
	"io"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout/algebra"
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
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		words := fs.Bool("words", false, "also print the layout in 32-bit words (packed types)")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			m, err := mappingArg(pos[0])
			if err != nil {
				return err
			}
			r, err := report.NewCute(m, *words)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(w, r)
			}
			return r.WriteText(w)
		}
	},
}

// mappingArg reads a SHAPE argument (any form CompileShape takes) as an algebra Mapping.
func mappingArg(text string) (algebra.Mapping, error) {
	ix, err := convert.CompileShape(text)
	if err != nil {
		return algebra.Mapping{}, err
	}
	return report.LayoutMapping(ix)
}
