package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteText writes the report as `tpulayout cute` prints it.
func (r *Cute) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "shape:      %s\n", r.Shape)
	if r.One != "" {
		fmt.Fprintf(&b, "cute:       %s\n", r.One)
		fmt.Fprintf(&b, "coalesced:  %s\n", r.Coalesced)
		fmt.Fprintf(&b, "size:       %d\n", r.Size)
		fmt.Fprintf(&b, "cosize:     %d\n", r.Cosize)
		fmt.Fprintf(&b, "extents:    %s\n", intList(r.Extents))
	} else {
		fmt.Fprintf(&b, "chain:      %s\n", r.Reason)
	}
	if r.Words != "" {
		fmt.Fprintf(&b, "words:      %s\n", r.Words)
	}
	fmt.Fprintf(&b, "alloc:      %d elements of %d bits (%d bytes)\n", r.Alloc, r.ElementBits, r.AllocBytes)
	fmt.Fprintf(&b, "padding:    %d elements", r.Padding)
	if r.Complement != "" {
		fmt.Fprintf(&b, ", complement %s", r.Complement)
	}
	b.WriteString("\n")
	if r.One == "" {
		b.WriteString("levels:\n")
		for _, l := range r.Chain {
			fmt.Fprintf(&b, "  %-14s %s\n", l.Name, l.Layout)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the report as `tpulayout whereis` prints it: a line per element.
func (r *WhereIs) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, e := range r.Elements {
		if r.Byte != nil {
			fmt.Fprintf(&b, "byte %d: ", *r.Byte)
		}
		fmt.Fprintf(&b, "element %d: ", e.Element)
		if e.Padding {
			b.WriteString("padding\n")
		} else {
			fmt.Fprintf(&b, "%s\n", intList(e.Index))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Text is the comparison in one line, as `tpulayout equal` prints it.
func (r *Equal) Text() string {
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

// WriteText writes the report as `tpulayout copymap` prints it.
func (r *CopyMap) WriteText(w io.Writer) error {
	yes := map[bool]string{true: "yes", false: "no"}
	_, err := fmt.Fprintf(w, "copy map:   %s\nvector:     %s (%d bytes)\nbitcast:    %s\nclass:      %s\n",
		r.CopyMap, plural(r.Vector, "element"), r.VectorBytes, yes[r.Bitcast], r.Class)
	return err
}

// WriteText writes the report as `tpulayout blocks` prints it.
func (r *Blocks) WriteText(w io.Writer) error {
	var err error
	if r.Misaligned != "" {
		_, err = fmt.Fprintf(w, "misaligned: %s\n", r.Misaligned)
	} else {
		_, err = fmt.Fprintf(w, "blocks:     %d\nruns:       %d per block, %d elements (%d bytes) each\n", r.Blocks, r.Runs, r.RunElements, r.RunBytes)
	}
	return err
}

// WriteText writes the report as `tpulayout padding` prints it.
func (r *Padding) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "padding:    %d of %d elements (%.1f%%)\n", r.Padding, r.Alloc, 100*r.Fraction)
	if r.Extents != nil && !slices.Equal(r.Extents, r.Dims) {
		fmt.Fprintf(&b, "extents:    %s for dims %s\n", intList(r.Extents), intList(r.Dims))
	}
	if r.Complement != "" {
		fmt.Fprintf(&b, "complement: %s (padding at layout(x)+complement(c), c ≥ 1)\n", r.Complement)
	} else {
		fmt.Fprintf(&b, "complement: none (%v)\n", r.NoComplement)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// intList is [a,b,…].
func intList(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// plural is "1 element", "2 elements".
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
