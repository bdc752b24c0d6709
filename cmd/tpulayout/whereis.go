package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/report"
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
	define: algebraDefine([]string{"SHAPE"}, func(fs *flag.FlagSet) algebraBuild {
		byteArg := fs.String("byte", "", "the byte offset `N`")
		elemArg := fs.String("element", "", "the element offset `N`")
		return func(read readLayouts) (algebraResult, error) {
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if set["byte"] == set["element"] {
				return algebraResult{}, usagef("give one of --byte N and --element N")
			}
			ms, err := read()
			if err != nil {
				return algebraResult{}, err
			}
			name, text := "element", *elemArg
			if set["byte"] {
				name, text = "byte", *byteArg
			}
			n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
			if err != nil || n < 0 {
				return algebraResult{}, usagef("bad --%s %q: not a non-negative number", name, text)
			}
			return textResult(report.NewWhereIs(ms[0], n, set["byte"]))
		}
	}),
}
