package main

import (
	"errors"
	"flag"
	"io"

	"github.com/tpulayout/tpulayout/convert"
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
	define: algebraDefine([]string{"A", "B"}, func(*flag.FlagSet) algebraBuild {
		return func(read readLayouts) (algebraResult, error) {
			ms, err := read()
			if err != nil {
				return algebraResult{}, err
			}
			r, err := report.CompareLayouts(ms[0], ms[1])
			if err != nil {
				return algebraResult{}, err
			}
			res := algebraResult{report: r, text: func(w io.Writer) error {
				_, err := io.WriteString(w, r.Text()+"\n")
				return err
			}}
			if !r.Equal {
				res.mismatch = r.Text()
			}
			return res, nil
		}
	}),
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
	define: algebraDefine([]string{"SRC", "DST"}, func(*flag.FlagSet) algebraBuild {
		return func(read readLayouts) (algebraResult, error) {
			ms, err := read()
			if err != nil {
				return algebraResult{}, err
			}
			return textResult(report.NewCopyMap(ms[0], ms[1]))
		}
	}),
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
	define: algebraDefine([]string{"SHAPE"}, func(fs *flag.FlagSet) algebraBuild {
		blockArg := fs.String("block", "", "the block `B0,B1,...`, one entry per dim")
		return func(read readLayouts) (algebraResult, error) {
			ms, err := read()
			if err != nil {
				return algebraResult{}, err
			}
			if *blockArg == "" {
				return algebraResult{}, usagef("missing --block B0,B1,...")
			}
			bl, err := parseBlock(*blockArg)
			if err != nil {
				return algebraResult{}, err
			}
			r, err := report.NewBlocks(ms[0], bl)
			if err != nil {
				return algebraResult{}, err
			}
			return algebraResult{report: r, text: r.WriteText, mismatch: r.Misaligned}, nil
		}
	}),
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
	define: algebraDefine([]string{"SHAPE"}, func(*flag.FlagSet) algebraBuild {
		return func(read readLayouts) (algebraResult, error) {
			ms, err := read()
			if err != nil {
				return algebraResult{}, err
			}
			return textResult(report.NewPadding(ms[0]), nil)
		}
	}),
}

// readLayouts reads the positional SHAPE arguments of an algebra verb as mappings.
type readLayouts func() ([]algebra.Mapping, error)

// algebraBuild checks an algebra verb's own flags, reads its layouts (through read, at the
// point it chooses: that orders the usage errors) and makes the result to print.
type algebraBuild func(read readLayouts) (algebraResult, error)

// algebraResult is what an algebra verb prints: report as JSON with --json, else its
// text. A non-empty mismatch makes the verb exit 1 with that message once the report is
// printed.
type algebraResult struct {
	report   any
	text     func(io.Writer) error
	mismatch string
}

// textResult is the result of a report that writes its own text.
func textResult[R interface{ WriteText(io.Writer) error }](r R, err error) (algebraResult, error) {
	if err != nil {
		return algebraResult{}, err
	}
	return algebraResult{report: r, text: r.WriteText}, nil
}

// algebraDefine is the define of a verb of the layout algebra (cute, whereis, equal,
// copymap, blocks, padding): its positional arguments are the layouts named shapes, two
// of them of the same dims and element width; it takes --json, and the flags that
// declare declares, whose build makes the result.
func algebraDefine(shapes []string, declare func(fs *flag.FlagSet) algebraBuild) func(*flag.FlagSet) func([]string, io.Writer) error {
	return func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		build := declare(fs)
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, shapes...); err != nil {
				return err
			}
			res, err := build(func() ([]algebra.Mapping, error) { return mappings(pos) })
			if err != nil {
				return err
			}
			if *asJSON {
				err = writeJSON(w, res.report)
			} else {
				err = res.text(w)
			}
			if err == nil && res.mismatch != "" {
				err = &mismatch{errors.New(res.mismatch)}
			}
			return err
		}
	}
}

// mappings reads SHAPE arguments (any form CompileShape takes) as algebra mappings; two
// must have the same dims and element width.
func mappings(args []string) ([]algebra.Mapping, error) {
	ms := make([]algebra.Mapping, len(args))
	for i, a := range args {
		ix, err := convert.CompileShape(a)
		if err != nil {
			return nil, err
		}
		if ms[i], err = report.LayoutMapping(ix); err != nil {
			return nil, err
		}
	}
	if len(ms) == 2 {
		if err := report.SamePair(ms[0], ms[1]); err != nil {
			return nil, err
		}
	}
	return ms, nil
}
