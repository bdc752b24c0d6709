package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
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
			r, err := compareMappings(a, b)
			if err != nil {
				return err
			}
			if *asJSON {
				err = writeJSON(w, r)
			} else {
				_, err = io.WriteString(w, r.text()+"\n")
			}
			if err == nil && !r.Equal {
				err = &mismatch{errors.New(r.text())}
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
	if !slices.Equal(a.Dims, b.Dims) {
		return a, b, usagef("the dims differ: %s vs %s", intList(a.Dims), intList(b.Dims))
	}
	if a.ElementBits != b.ElementBits {
		return a, b, usagef("the element widths differ: %d vs %d bits", a.ElementBits, b.ElementBits)
	}
	return a, b, nil
}

type equalOut struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Equal   bool    `json:"equal"`
	SameMap bool    `json:"same_map"`
	AllocA  int64   `json:"alloc_a"`
	AllocB  int64   `json:"alloc_b"`
	Index   []int64 `json:"index,omitempty"`
	OffA    *int64  `json:"offset_a,omitempty"`
	OffB    *int64  `json:"offset_b,omitempty"`
}

// maxWalk bounds element-by-element comparisons.
const maxWalk = 1 << 26

func compareMappings(a, b algebra.Mapping) (*equalOut, error) {
	r := &equalOut{A: a.Shape.String(), B: b.Shape.String(), AllocA: a.Alloc, AllocB: b.Alloc}
	ca, okA := a.Canonical()
	cb, okB := b.Canonical()
	r.SameMap = okA && okB && ca.Equal(cb)
	n := int64(1)
	for _, d := range a.Dims {
		n *= d // ≤ Alloc
	}
	if !r.SameMap && n <= maxWalk {
		idx := make([]int64, len(a.Dims))
		r.SameMap = true
		for {
			oa, err := a.Offset(idx)
			if err != nil {
				return nil, err
			}
			ob, err := b.Offset(idx)
			if err != nil {
				return nil, err
			}
			if oa != ob {
				r.SameMap, r.Index, r.OffA, r.OffB = false, slices.Clone(idx), &oa, &ob
				break
			}
			if !layout.NextIndex(idx, a.Dims) {
				break
			}
		}
	} else if !r.SameMap && !(okA && okB) {
		return nil, usagef("%d elements: too many to compare a chain element by element", n)
	}
	r.Equal = r.SameMap && a.Alloc == b.Alloc
	return r, nil
}

func (r *equalOut) text() string {
	switch {
	case r.Equal:
		return fmt.Sprintf("equal: every element at the same offset, alloc %d", r.AllocA)
	case r.SameMap:
		return fmt.Sprintf("same element map, alloc %d vs %d", r.AllocA, r.AllocB)
	case r.Index != nil:
		return fmt.Sprintf("differ: element %s at offset %d vs %d", intList(r.Index), *r.OffA, *r.OffB)
	}
	return "differ: the coalesced forms differ"
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
			r, err := copyMap(src, dst)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(w, r)
			}
			yes := map[bool]string{true: "yes", false: "no"}
			_, err = fmt.Fprintf(w, "copy map:   %s\nvector:     %s (%d bytes)\nbitcast:    %s\nclass:      %s\n",
				r.CopyMap, plural(r.Vector, "element"), r.VectorBytes, yes[r.Bitcast], r.Class)
			return err
		}
	},
}

type copymapOut struct {
	Src         string `json:"src"`
	Dst         string `json:"dst"`
	CopyMap     string `json:"copy_map"`
	Vector      int64  `json:"vector"`
	VectorBytes int64  `json:"vector_bytes"`
	Bitcast     bool   `json:"bitcast"`
	Class       string `json:"class"`
}

func copyMap(src, dst algebra.Mapping) (*copymapOut, error) {
	s, err := src.Exact()
	if err != nil {
		return nil, usagef("SRC: %s", report.ErrorText(err))
	}
	d, err := dst.Exact()
	if err != nil {
		return nil, usagef("DST: %s", report.ErrorText(err))
	}
	r := &copymapOut{Src: src.Shape.String(), Dst: dst.Shape.String()}
	cm, err := algebra.CopyMap(src, dst)
	var de *algebra.DivisibilityError
	switch {
	case errors.As(err, &de):
		// Not one layout: the copy still exists, element by element.
		r.CopyMap, r.Vector, r.Class = "none: "+report.ErrorText(err), 1, "element shuffle"
	case errors.Is(err, algebra.ErrNotInjective):
		return nil, usagef("SRC %s has holes: the copy map needs a source whose offsets are exactly [0, size)", src.Shape.String())
	case err != nil:
		return nil, err
	default:
		c := algebra.Coalesce(cm)
		r.CopyMap = c.String()
		if r.Vector, err = algebra.MaxCommonVector(d, s); err != nil {
			return nil, err
		}
		identity := c.Equal(algebra.Leaf(s.Size(), 1)) || s.Size() == 1
		r.Bitcast = identity && src.Alloc == dst.Alloc
		switch {
		case r.Bitcast:
			r.Class = "bitcast"
		case identity:
			r.Class = "memcpy"
		case r.Vector > 1:
			r.Class = fmt.Sprintf("strided runs of %d elements", r.Vector)
		default:
			r.Class = "element shuffle"
		}
	}
	r.VectorBytes = r.Vector * int64(src.ElementBits) / 8
	return r, nil
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
			r, err := blocks(m, bl)
			if err != nil {
				return err
			}
			if *asJSON {
				err = writeJSON(w, r)
			} else if r.Misaligned != "" {
				_, err = fmt.Fprintf(w, "misaligned: %s\n", r.Misaligned)
			} else {
				_, err = fmt.Fprintf(w, "blocks:     %d\nruns:       %d per block, %d elements (%d bytes) each\n", r.Blocks, r.Runs, r.RunElements, r.RunBytes)
			}
			if err == nil && r.Misaligned != "" {
				err = &mismatch{errors.New(r.Misaligned)}
			}
			return err
		}
	},
}

type blocksOut struct {
	Shape       string  `json:"shape"`
	Block       []int64 `json:"block"`
	Blocks      int64   `json:"blocks,omitempty"`
	Runs        int64   `json:"runs,omitempty"`
	RunElements int64   `json:"run_elements,omitempty"`
	RunBytes    int64   `json:"run_bytes,omitempty"`
	Misaligned  string  `json:"misaligned,omitempty"`
}

func blocks(m algebra.Mapping, bl []int64) (*blocksOut, error) {
	if len(bl) != len(m.Dims) {
		return nil, usagef("--block has %d entries for %d dims", len(bl), len(m.Dims))
	}
	l, err := m.Exact()
	if err != nil {
		return nil, usagef("%s", report.ErrorText(err))
	}
	r := &blocksOut{Shape: m.Shape.String(), Block: bl}
	tiles := make([]algebra.Layout, len(bl))
	for k, b := range bl {
		tiles[k] = algebra.Leaf(b, 1)
		if _, err := algebra.LogicalDivide(l.Mode(k), tiles[k]); err != nil {
			var de *algebra.DivisibilityError
			if !errors.As(err, &de) {
				return nil, err
			}
			r.Misaligned = fmt.Sprintf("block %d not aligned to tile %d (dim %d)", b, de.Have, k)
			return r, nil
		}
	}
	for k, b := range bl {
		if m.Dims[k]%b != 0 {
			return nil, usagef("--block %d does not divide dim %d (%d)", b, k, m.Dims[k])
		}
	}
	if len(bl) == 1 {
		l = algebra.MustNew(algebra.Tuple(l.Shape), algebra.Tuple(l.Stride))
	}
	z, err := algebra.ZippedDivide(l, tiles)
	if err != nil {
		return nil, err
	}
	r.Blocks = z.Mode(1).Size()
	r.RunElements, r.Runs = algebra.Runs(z.Mode(0))
	r.RunBytes = r.RunElements * int64(m.ElementBits) / 8
	return r, nil
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
			r := paddingOut{Shape: m.Shape.String(), Alloc: m.Alloc, Extents: m.Extents}
			comp, pad, err := m.Padding()
			r.Padding = pad
			r.Fraction = float64(pad) / float64(max(m.Alloc, 1))
			if err == nil {
				r.Complement = comp.String()
			}
			if *asJSON {
				return writeJSON(w, r)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "padding:    %d of %d elements (%.1f%%)\n", r.Padding, r.Alloc, 100*r.Fraction)
			if r.Extents != nil && !slices.Equal(r.Extents, m.Dims) {
				fmt.Fprintf(&b, "extents:    %s for dims %s\n", intList(r.Extents), intList(m.Dims))
			}
			if r.Complement != "" {
				fmt.Fprintf(&b, "complement: %s (padding at layout(x)+complement(c), c ≥ 1)\n", r.Complement)
			} else {
				fmt.Fprintf(&b, "complement: none (%v)\n", err)
			}
			_, err = io.WriteString(w, b.String())
			return err
		}
	},
}

type paddingOut struct {
	Shape      string  `json:"shape"`
	Alloc      int64   `json:"alloc"`
	Padding    int64   `json:"padding"`
	Fraction   float64 `json:"fraction"`
	Extents    []int64 `json:"extents,omitempty"`
	Complement string  `json:"complement,omitempty"`
}

// plural is "1 element", "2 elements".
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
