package layout

import (
	"errors"
	"fmt"
)

// RowBlocks says how an array in a layout can be filled from (or copied to) the same
// array stored row-major on the host, in contiguous pieces.
type RowBlocks struct {
	// Run is the largest R such that the array splits into runs of R row-major
	// elements, each stored at consecutive offsets in the same order. Runs shorter than
	// a row start at each row's start (the last run of a row may be shorter); runs of
	// k whole rows start at every k-th row of the next dim out (likewise). R = 1 means
	// no two row-major neighbours are neighbours in the layout.
	Run int64 `json:"run"`
	// Rows is how many whole rows (the minor dim) a run covers; 0 when a run is only
	// part of a row.
	Rows int64 `json:"rows"`
	// Pieces is the number of runs the array splits into.
	Pieces int64 `json:"pieces"`
	// Identical reports whether the layout is row-major with no padding: the whole
	// buffer is one run, the same bytes as the host array.
	Identical bool `json:"identical"`
}

// ErrRowBlocks is wrapped by the *RowBlocksError returned when a layout's runs cannot be
// worked out: combined dims, or a tiling whose period is too large to scan.
var ErrRowBlocks = errors.New("layout: row blocks not analysed")

// RowBlocksError says why a layout's runs cannot be worked out; it unwraps to
// [ErrRowBlocks].
type RowBlocksError struct {
	Reason string // "the array is empty", "the layout combines dims", …
}

func (e *RowBlocksError) Error() string { return ErrRowBlocks.Error() + ": " + e.Reason }
func (e *RowBlocksError) Unwrap() error { return ErrRowBlocks }

// rowScanLimit bounds the offsets computed per dim.
const rowScanLimit = 1 << 22

// RowBlocks works out the contiguous runs of the layout against row-major order.
//
// Without combined dims the offset is a sum of one term per logical dim,
// g_d(x) = Offset(x·e_d), each periodic (plus a linear part) with a period dividing
// the product of the tile entries. A run of the minor dim breaks where
// g(x) ≠ g(x−1)+1, so R is the gcd of those break points (the dim size when there are
// none); when whole rows are runs, the next dim is read the same way with step "row
// length", and so on outwards. Scanning two periods of each dim is exact.
func (ix *Indexer) RowBlocks() (RowBlocks, error) {
	n := len(ix.dims)
	if ix.logical == 0 {
		return RowBlocks{}, &RowBlocksError{"the array is empty"}
	}
	if n == 0 {
		return RowBlocks{Run: 1, Pieces: 1, Identical: ix.footprint == 1}, nil
	}
	period := int64(1)
	for _, t := range ix.shape.Layout.Tiles {
		for _, e := range t {
			if e == Combined {
				return RowBlocks{}, &RowBlocksError{"the layout combines dims"}
			}
			if period > rowScanLimit || e > rowScanLimit {
				period = rowScanLimit + 1
				continue
			}
			period *= e
		}
	}
	idx := make([]int64, n)
	g := func(d int, x int64) int64 {
		idx[d] = x
		off := ix.Offset(idx)
		idx[d] = 0
		return off
	}
	step, rows := int64(1), int64(0)
	for d := n - 1; d >= 0; d-- {
		size := ix.dims[d]
		scan := size
		if period <= rowScanLimit {
			scan = min(size, 2*period+2)
		} else if size > rowScanLimit {
			return RowBlocks{}, &RowBlocksError{fmt.Sprintf("dim %d of size %d is too large to scan", d, size)}
		}
		run := int64(0) // gcd of the break points; 0 = none yet
		prev := g(d, 0)
		for x := int64(1); x < scan; x++ {
			cur := g(d, x)
			if cur != prev+step {
				run = gcd(run, x)
				if run == 1 {
					break
				}
			}
			prev = cur
		}
		if run == 0 {
			run = size
		}
		if run < size || d == 0 {
			rb := RowBlocks{Run: run * step, Rows: rows * run,
				Pieces: ix.logical / (size * step) * ((size + run - 1) / run)}
			if d == n-1 {
				rb.Rows = 0
				if run == size {
					rb.Rows = 1
				}
			}
			rb.Identical = d == 0 && run == size && ix.footprint == ix.logical
			return rb, nil
		}
		if d == n-1 {
			rows = 1
		} else {
			rows *= size
		}
		step *= size
	}
	panic("unreachable")
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
