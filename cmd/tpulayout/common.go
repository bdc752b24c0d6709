package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// compileShape parses and compiles a SHAPE argument. Errors are input errors; a parse
// error names the byte where the text went wrong.
func compileShape(text string) (*layout.Indexer, error) {
	sh, err := parseShapeArg(text) // also HLO lines, tuple elements, hlo:FILE:param=N
	if err != nil {
		var pe *layout.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("bad shape %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
		}
		return nil, fmt.Errorf("bad shape %q: %s", layout.Quote(text), strings.TrimPrefix(err.Error(), "layout: "))
	}
	ix, err := layout.Compile(sh)
	if err != nil {
		return nil, fmt.Errorf("shape %q: %s", layout.Quote(text), strings.TrimPrefix(err.Error(), "layout: "))
	}
	return ix, nil
}

// needArgs checks the count of positional arguments; names lists them for the message.
func needArgs(pos []string, names ...string) error {
	if len(pos) < len(names) {
		return usagef("missing %s", strings.Join(names[len(pos):], " and "))
	}
	if len(pos) > len(names) {
		return usagef("unexpected argument %q", layout.Quote(pos[len(names)]))
	}
	return nil
}

// parseIndex reads a logical index such as "2,3", "(2,3)" or "[2,3]"; a scalar's index is
// "" or "()". It checks the rank and every coordinate against dims.
func parseIndex(text string, dims []int64) ([]int64, error) {
	s := strings.TrimSpace(text)
	if len(s) >= 2 && (s[0] == '(' && s[len(s)-1] == ')' || s[0] == '[' && s[len(s)-1] == ']') {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	idx := []int64{}
	if s != "" {
		for part := range strings.SplitSeq(s, ",") {
			p := strings.TrimSpace(part)
			v, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				if p == "" {
					return nil, fmt.Errorf("bad index %q: empty coordinate", layout.Quote(text))
				}
				if errors.Is(err, strconv.ErrRange) {
					return nil, fmt.Errorf("bad index %q: coordinate %q is out of range", layout.Quote(text), layout.Quote(p))
				}
				return nil, fmt.Errorf("bad index %q: coordinate %q is not a number", layout.Quote(text), layout.Quote(p))
			}
			idx = append(idx, v)
		}
	}
	if len(idx) != len(dims) {
		return nil, fmt.Errorf("bad index %q: it has %d coordinates, but the shape has rank %d (dims %s)",
			layout.Quote(text), len(idx), len(dims), fmtDims(dims))
	}
	for i, v := range idx {
		if v < 0 || v >= dims[i] {
			return nil, fmt.Errorf("bad index %q: coordinate %d is out of range for dimension %d of size %d",
				layout.Quote(text), v, i, dims[i])
		}
	}
	return idx, nil
}

// fmtDims prints dims as "[3,5]".
func fmtDims[T int | int64](d []T) string { return "[" + joinInts(d) + "]" }

// fmtIndex prints an index as "(2,3)".
func fmtIndex[T int | int64](d []T) string { return "(" + joinInts(d) + ")" }

func joinInts[T int | int64](d []T) string {
	var b strings.Builder
	for i, v := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(v), 10))
	}
	return b.String()
}

// tilesText prints the tiles as "(8,128)(2,1)", or "none".
func tilesText(ts []layout.Tile) string {
	if len(ts) == 0 {
		return "none"
	}
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.String())
	}
	return b.String()
}

// nonNil returns s, or an empty slice when s is nil, so JSON prints [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeJSON prints v indented, with arrays of numbers and strings kept on one line.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(compactArrays(b), '\n')
	_, err = w.Write(b)
	return err
}

// compactArrays rewrites indented JSON so that arrays holding no objects or arrays print
// on one line: [\n    3,\n    5\n  ] becomes [3,5].
func compactArrays(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' { // copy a string whole
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:j+1]...)
			i = j
			continue
		}
		if c != '[' {
			out = append(out, c)
			continue
		}
		// Find the matching ']' if no '[' or '{' comes first (outside strings).
		flat, j := true, i+1
		for ; j < len(b) && b[j] != ']'; j++ {
			switch b[j] {
			case '[', '{':
				flat = false
			case '"':
				for j++; j < len(b) && b[j] != '"'; j++ {
					if b[j] == '\\' {
						j++
					}
				}
			}
			if !flat {
				break
			}
		}
		if !flat || j >= len(b) {
			out = append(out, c)
			continue
		}
		out = append(out, '[')
		inStr := false
		for k := i + 1; k < j; k++ {
			switch ch := b[k]; {
			case inStr:
				out = append(out, ch)
				if ch == '\\' {
					k++
					out = append(out, b[k])
				} else if ch == '"' {
					inStr = false
				}
			case ch == '"':
				inStr = true
				out = append(out, ch)
			case ch == ' ' || ch == '\n' || ch == '\t':
			default:
				out = append(out, ch)
			}
		}
		out = append(out, ']')
		i = j
	}
	return out
}

// plural prints n and the noun, adding "s" unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// elementBitsNote describes the storage width, e.g. "16 bits per element" or
// "8 bits per element (s4 is a 4-bit type, unpacked without E(n))".
func elementBitsNote(ix *layout.Indexer) string {
	dt := ix.Shape().DType
	bits := ix.ElementBits()
	s := fmt.Sprintf("%d bits", bits)
	switch {
	case ix.Shape().Layout.ElementBits > 0 && int(ix.Shape().Layout.ElementBits) != dt.Bits():
		s += fmt.Sprintf(" (E(%d); %s is a %d-bit type)", bits, dt, dt.Bits())
	case ix.Shape().Layout.ElementBits > 0:
		s += fmt.Sprintf(" (E(%d))", bits)
	case bits != dt.Bits():
		s += fmt.Sprintf(" (%s is a %d-bit type, stored unpacked without E(n))", dt, dt.Bits())
	}
	return s
}
