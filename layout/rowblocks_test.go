package layout

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// bruteRowBlocks walks every element in row-major order and collects the break points
// h, where element h is not at the offset after element h−1's. Going out from the
// rows, units of dims d… (U elements) hold whole runs when no break falls inside a
// unit; the first level with breaks inside a unit gives R, the gcd of their positions
// within the unit.
func bruteRowBlocks(ix *Indexer) (run, pieces int64, identical bool) {
	idx := make([]int64, ix.Rank())
	prev := ix.Offset(idx)
	identical = prev == 0
	var breaks []int64
	for h := int64(1); NextIndex(idx, ix.Dims()); h++ {
		off := ix.Offset(idx)
		if off != prev+1 {
			breaks = append(breaks, h)
		}
		identical = identical && off == h
		prev = off
	}
	n := ix.LogicalElements()
	identical = identical && ix.FootprintElements() == n
	unit := int64(1)
	for d := ix.Rank() - 1; d >= 0; d-- {
		unit *= ix.Dims()[d]
		run = 0
		for _, b := range breaks {
			if b%unit != 0 {
				run = gcd(run, b%unit)
			}
		}
		if run != 0 {
			return run, n / unit * ((unit + run - 1) / run), identical
		}
	}
	return n, 1, identical
}

func TestRowBlocksAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	analysed := 0
	defer func() {
		if analysed < 2000 {
			t.Errorf("only %d of 3000 layouts analysed", analysed)
		}
	}()
	for cases := 0; cases < 3000; {
		s := randomShape(r)
		ix, err := Compile(s)
		if err != nil || ix.LogicalElements() == 0 || ix.FootprintElements() > 1<<14 {
			continue
		}
		cases++
		got, err := ix.RowBlocks()
		if errors.Is(err, ErrRowBlocks) {
			continue // combined dims
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		analysed++
		run, pieces, identical := bruteRowBlocks(ix)
		if got.Run != run || got.Pieces != pieces || got.Identical != identical {
			t.Fatalf("%s: RowBlocks = %+v, brute force run %d pieces %d identical %v", s, got, run, pieces, identical)
		}
		if rank := ix.Rank(); rank > 0 {
			row := ix.Dims()[rank-1]
			if wantRows := run / row; row > 0 && (run%row == 0 && got.Rows != wantRows || run%row != 0 && got.Rows != 0) {
				t.Fatalf("%s: Rows = %d for run %d of rows of %d", s, got.Rows, run, row)
			}
		}
	}
}

func TestRowBlocksExamples(t *testing.T) {
	for _, c := range []struct {
		shape     string
		run, rows int64
		identical bool
	}{
		{"f32[4096,4096]{1,0}", 4096 * 4096, 4096, true},
		{"f32[4096,4096]{1,0:T(8,128)}", 128, 0, false},
		{"f32[4096,128]{1,0:T(8,128)}", 4096 * 128, 4096, true},
		{"f32[1000,100]{1,0:T(8,128)}", 100, 1, false},
		{"bf16[4096,4096]{1,0:T(8,128)(2,1)}", 1, 0, false},
		{"f32[512,3,2048]{2,1,0}", 512 * 3 * 2048, 512 * 3, true},
		{"f32[8,4096]{0,1}", 1, 0, false},
		// 1-D: a T(1024) tiling of 4096 elements is the host order, 4000 leaves padding.
		{"f32[4096]{0:T(1024)}", 4096, 1, true},
		{"f32[4000]{0:T(1024)}", 4000, 1, false},
		// A large dim is scanned over two periods only, and still exact.
		{"f32[3,100000000]{1,0:T(8,128)}", 128, 0, false},
	} {
		ix, err := Compile(MustParse(c.shape))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ix.RowBlocks()
		if err != nil || got.Run != c.run || got.Rows != c.rows || got.Identical != c.identical {
			t.Errorf("%s: %+v, %v; want run %d rows %d identical %v", c.shape, got, err, c.run, c.rows, c.identical)
		}
	}
	ix, _ := Compile(MustParse("f32[4,8]{1,0:T(*,2)}"))
	_, err := ix.RowBlocks()
	var re *RowBlocksError
	if !errors.Is(err, ErrRowBlocks) || !errors.As(err, &re) || re.Reason != "the layout combines dims" {
		t.Errorf("combined dims: %v, want a RowBlocksError that the layout combines dims", err)
	}
	if got, want := err.Error(), "layout: row blocks not analysed: the layout combines dims"; got != want {
		t.Errorf("combined dims: %q, want %q", got, want)
	}
}
