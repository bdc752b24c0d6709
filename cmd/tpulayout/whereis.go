package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

var whereisVerb = &verb{
	name:     "whereis",
	synopsis: "SHAPE --byte N | --element N [--json]",
	summary:  "which logical element sits at a byte or element offset, or padding",
	detail: `Whereis prints the logical index stored at element offset N (--element) or in byte N
(--byte) of SHAPE's buffer, or "padding". It inverts the CuTe form of the layout (see
'tpulayout help cute'); a byte of a type narrower than 8 bits holds several elements,
and each is listed. N must lie within the allocation.

With --json it prints one object: shape, byte (with --byte), element_bits, and elements,
each with element, padding and index (absent for padding).`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print JSON")
		byteArg := fs.String("byte", "", "the byte offset `N`")
		elemArg := fs.String("element", "", "the element offset `N`")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if set["byte"] == set["element"] {
				return usagef("give one of --byte N and --element N")
			}
			m, err := mappingArg(pos[0])
			if err != nil {
				return err
			}
			name, text := "element", *elemArg
			if set["byte"] {
				name, text = "byte", *byteArg
			}
			n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
			if err != nil || n < 0 {
				return usagef("bad --%s %q: not a non-negative number", name, text)
			}
			bits := int64(m.ElementBits)
			first, last := n, n
			if set["byte"] {
				if n >= (m.Alloc*bits+7)/8 {
					return usagef("--byte %d is outside the allocation of %d bytes", n, (m.Alloc*bits+7)/8)
				}
				first, last = n*8/bits, min((n*8+7)/bits, m.Alloc-1)
			} else if n >= m.Alloc {
				return usagef("--element %d is outside the allocation of %d elements", n, m.Alloc)
			}
			r := whereisOut{Shape: m.Shape.String(), ElementBits: m.ElementBits}
			if set["byte"] {
				r.Byte = &n
			}
			for e := first; e <= last; e++ {
				idx, ok, err := m.Index(e)
				if err != nil {
					return err
				}
				r.Elements = append(r.Elements, whereisElem{Element: e, Padding: !ok, Index: idx})
				if !ok {
					r.Elements[len(r.Elements)-1].Index = nil
				}
			}
			if *asJSON {
				return writeJSON(w, r)
			}
			return r.writeText(w)
		}
	},
}

type whereisElem struct {
	Element int64   `json:"element"`
	Padding bool    `json:"padding"`
	Index   []int64 `json:"index,omitempty"`
}

type whereisOut struct {
	Shape       string        `json:"shape"`
	Byte        *int64        `json:"byte,omitempty"`
	ElementBits int           `json:"element_bits"`
	Elements    []whereisElem `json:"elements"`
}

func (r whereisOut) writeText(w io.Writer) error {
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
