package main

import (
	"fmt"
	"math"
)

// The work show does is bounded whatever --max and --max-slices say: every shown
// element's offset is computed and printed, and an SVG holds about 100 bytes per cell.
const (
	maxShowCells = 1 << 22
	maxSVGCells  = 1 << 18
)

// checkShowCells fails when show would draw more than it handles.
func checkShowCells(shape string, cells int64, svg bool) error {
	limit, what := int64(maxShowCells), "show prints at most"
	if svg {
		limit, what = maxSVGCells, "an SVG figure holds at most"
	}
	if cells > limit {
		return fmt.Errorf("%s has %d elements to show, but %s %d; show a smaller shape", shape, cells, what, limit)
	}
	return nil
}

// satMul is a*b for non-negative numbers, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
