package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// Plural prints n and the noun, adding "s" unless n is 1: "1 tensor", "3 tensors".
func Plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

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

// DimsText prints dims as XLA does: "[3,5]".
func DimsText[T int | int64](d []T) string { return "[" + joinInts(d) + "]" }

// fmtIndex prints an index as "(2,3)".
func fmtIndex[T int | int64](d []T) string { return "(" + joinInts(d) + ")" }

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
