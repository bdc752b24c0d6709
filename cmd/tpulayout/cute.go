package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout/algebra"
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
			r, err := cuteReport(m, *words)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(w, r)
			}
			return r.writeText(w)
		}
	},
}

// mappingArg reads a SHAPE argument (any form CompileShape takes) as an algebra Mapping.
func mappingArg(text string) (algebra.Mapping, error) {
	ix, err := convert.CompileShape(text)
	if err != nil {
		return algebra.Mapping{}, err
	}
	m, err := algebra.FromXLA(ix.Shape())
	if err != nil {
		return algebra.Mapping{}, usagef("%v", err)
	}
	return m, nil
}

type cuteLevel struct {
	Name   string `json:"name"`
	Layout string `json:"layout"`
}

type cuteOut struct {
	Shape       string      `json:"shape"`
	ElementBits int         `json:"element_bits"`
	One         string      `json:"one,omitempty"`
	Coalesced   string      `json:"coalesced,omitempty"`
	Reason      string      `json:"reason,omitempty"`
	Size        int64       `json:"size,omitempty"`
	Cosize      int64       `json:"cosize,omitempty"`
	Extents     []int64     `json:"extents,omitempty"`
	Alloc       int64       `json:"alloc"`
	AllocBytes  int64       `json:"alloc_bytes"`
	Padding     int64       `json:"padding"`
	Complement  string      `json:"complement,omitempty"`
	Words       string      `json:"words,omitempty"`
	Chain       []cuteLevel `json:"chain"`
}

func cuteReport(m algebra.Mapping, words bool) (*cuteOut, error) {
	r := &cuteOut{Shape: m.Shape.String(), ElementBits: m.ElementBits, Reason: m.Reason, Alloc: m.Alloc}
	r.AllocBytes = (m.Alloc*int64(m.ElementBits) + 7) / 8 // Compile checked the bits fit
	comp, pad, err := m.Padding()
	r.Padding = pad
	if m.One != nil {
		r.One, r.Size, r.Cosize, r.Extents = m.One.String(), m.One.Size(), m.One.Cosize(), m.Extents
		c, _ := m.Canonical()
		r.Coalesced = c.String()
		if err == nil {
			r.Complement = comp.String()
		}
	}
	if words {
		wl, err := m.Words()
		if err != nil {
			return nil, usagef("--words: %v", err)
		}
		r.Words = wl.String()
	}
	for _, l := range m.Chain {
		r.Chain = append(r.Chain, cuteLevel{l.Name, l.Layout.String()})
	}
	return r, nil
}

func (r *cuteOut) writeText(w io.Writer) error {
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

// intList is [a,b,…].
func intList(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}
