package main

import (
	"errors"
	"flag"
	"io"

	"github.com/tpulayout/tpulayout/layout/algebra"
	"github.com/tpulayout/tpulayout/report"
)

var equalVerb = &verb{
	name:     "equal",
	synopsis: "A B [--json]",
	summary:  "whether two layouts of one shape put every element at the same offset",
	detail: `Equal compares two layouts of the same dims and element width: exit 0 when every
element has the same offset under both and both allocate the same, 1 otherwise, saying
what differs: "same element map" with both allocations, or the first element (in
row-major order) whose offsets differ. Layouts that are one CuTe layout are compared by
their coalesced forms (see 'tpulayout help cute'); otherwise element by element.

With --json it prints one object: a, b, equal, same_map, alloc_a, alloc_b, and when the
maps differ index, offset_a, offset_b (absent when no element was compared).`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "A", "B"); err != nil {
				return err
			}
			a, b, err := mappingPair(pos[0], pos[1])
			if err != nil {
				return err
			}
			r, err := report.CompareLayouts(a, b)
			if err != nil {
				return err
			}
			if *asJSON {
				err = writeJSON(w, r)
			} else {
				_, err = io.WriteString(w, r.Text()+"\n")
			}
			if err == nil && !r.Equal {
				err = &mismatch{errors.New(r.Text())}
			}
			return err
		}
	},
}

// mappingPair reads two SHAPE arguments of the same dims and element width.
func mappingPair(x, y string) (algebra.Mapping, algebra.Mapping, error) {
	a, err := mappingArg(x)
	if err != nil {
		return a, a, err
	}
	b, err := mappingArg(y)
	if err != nil {
		return a, b, err
	}
	return a, b, report.SamePair(a, b)
}

var copymapVerb = &verb{
	name:     "copymap",
	synopsis: "SRC DST [--json]",
	summary:  "the copy map from source offsets to destination offsets, its vector and class",
	detail: `Copymap prints the copy map of a relayout from SRC to DST (the same dims and element
width): the CuTe layout DST ∘ right_inverse(SRC) that sends each source offset to its
destination offset, coalesced; the longest common contiguous run (the vector, in
elements and bytes); whether the copy is a bitcast (the map is the identity and both
allocate the same) or a memcpy (identity, different allocations); and the class:
bitcast, memcpy, strided runs of N elements, or element shuffle. SRC must have no
padding inside its elements' span, and both must be one layout on their exact dims;
otherwise it says why.

With --json it prints one object: src, dst, copy_map, vector, vector_bytes, bitcast,
class.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SRC", "DST"); err != nil {
				return err
			}
			src, dst, err := mappingPair(pos[0], pos[1])
			if err != nil {
				return err
			}
			r, err := report.NewCopyMap(src, dst)
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

var blocksVerb = &verb{
	name:     "blocks",
	synopsis: "SHAPE --block B0,B1,... [--json]",
	summary:  "how a block shape (a Pallas block, a shard) cuts the layout into runs",
	detail: `Blocks divides SHAPE's layout by a block of the given dims (each dividing its dim),
as CuTe's zipped_divide does, and prints the number of blocks, and for a block the
number of contiguous runs of its elements in memory and their length. When the block
cuts the layout's digits inexactly (a block of 12 rows over tiles of 8), it prints which
block dim misaligns with which tile and exits 1.

With --json it prints one object: shape, block, blocks, runs, run_elements, run_bytes,
and for a misaligned block misaligned (the message).`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		blockArg := fs.String("block", "", "the block `B0,B1,...`, one entry per dim")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			m, err := mappingArg(pos[0])
			if err != nil {
				return err
			}
			if *blockArg == "" {
				return usagef("missing --block B0,B1,...")
			}
			bl, err := parseBlock(*blockArg)
			if err != nil {
				return err
			}
			r, err := report.NewBlocks(m, bl)
			if err != nil {
				return err
			}
			if *asJSON {
				err = writeJSON(w, r)
			} else {
				err = r.WriteText(w)
			}
			if err == nil && r.Misaligned != "" {
				err = &mismatch{errors.New(r.Misaligned)}
			}
			return err
		}
	},
}

var paddingVerb = &verb{
	name:     "padding",
	synopsis: "SHAPE [--json]",
	summary:  "how much of the allocation is padding, and where it sits",
	detail: `Padding prints how many allocated elements hold no element of SHAPE, their share, the
padded extent of each dim that its tiles round up (holes at the end of a dim), and the
complement layout C = CuTe's complement(layout, alloc): the padding sits at the offsets
layout(x) + C(c) for c ≥ 1 (c = 0 is the elements themselves), usable to zero-fill or
check padding.

With --json it prints one object: shape, alloc, padding, fraction, extents, complement
(absent for a chain or holes the complement cannot express).`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			m, err := mappingArg(pos[0])
			if err != nil {
				return err
			}
			r := report.NewPadding(m)
			if *asJSON {
				return writeJSON(w, r)
			}
			return r.WriteText(w)
		}
	},
}
