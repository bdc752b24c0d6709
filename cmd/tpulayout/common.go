package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// compileShape parses and compiles a SHAPE argument (see convert.CompileShape).
func compileShape(text string) (*layout.Indexer, error) { return convert.CompileShape(text) }

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
func fmtDims(d []int64) string { return "[" + joinInts(d) + "]" }

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

// nonNil returns s, or an empty slice when s is nil, so JSON prints [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeJSON prints v as the reports do (see report.JSON).
func writeJSON(w io.Writer, v any) error {
	b, err := report.JSON(v)
	if err == nil {
		_, err = w.Write(b)
	}
	return err
}

// plural prints n and the noun, adding "s" unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
