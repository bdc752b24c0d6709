package main

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// gridRows parses the lines of show's output that hold only integers: the grid rows.
// Header lines (`[1,:,:]`) start a new slice.
func gridRows(t *testing.T, out string) (slices [][][]int64, headers []string) {
	t.Helper()
	var cur [][]int64
	flush := func() {
		if cur != nil {
			slices = append(slices, cur)
			cur = nil
		}
	}
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, ",:,:]") {
			flush()
			headers = append(headers, line)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		var row []int64
		for _, f := range fields {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				row = nil
				break
			}
			row = append(row, v)
		}
		if row != nil {
			cur = append(cur, row)
		}
	}
	flush()
	return slices, headers
}

// seq is a, a+step, … (n values).
func seq(a, step int64, n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = a + step*int64(i)
	}
	return s
}

func cat(parts ...[]int64) []int64 {
	var s []int64
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

// TestShowSpecGrids compares show with the full grids of the spec's test vectors.
func TestShowSpecGrids(t *testing.T) {
	cases := map[string][][]int64{
		"f32[3,5]{1,0:T(2,2)}": {{0, 1, 4, 5, 8}, {2, 3, 6, 7, 10}, {12, 13, 16, 17, 20}},
		"f32[3,5]{0,1:T(2,2)}": {{0, 2, 8, 10, 16}, {1, 3, 9, 11, 17}, {4, 6, 12, 14, 20}},
		"bf16[4,8]{1,0:T(2,4)(2,1)}": {
			seq(0, 2, 8), seq(1, 2, 8), seq(16, 2, 8), seq(17, 2, 8),
		},
		"bf16[4,8]{1,0:T(2,4)}": {
			cat(seq(0, 1, 4), seq(8, 1, 4)), cat(seq(4, 1, 4), seq(12, 1, 4)),
			cat(seq(16, 1, 4), seq(24, 1, 4)), cat(seq(20, 1, 4), seq(28, 1, 4)),
		},
	}
	for shape, want := range cases {
		out := mustRun(t, "show", shape)
		slices, headers := gridRows(t, out)
		if len(slices) != 1 || len(headers) != 0 {
			t.Errorf("show %s: %d grids, headers %q:\n%s", shape, len(slices), headers, out)
			continue
		}
		if !reflect.DeepEqual(slices[0], want) {
			t.Errorf("show %s:\n%s\nwant rows %v", shape, out, want)
		}
		// Columns are aligned: every grid line has the same length.
		var lens []int
		for line := range strings.SplitSeq(out, "\n") {
			if f := strings.Fields(line); len(f) == len(want[0]) {
				if _, err := strconv.Atoi(f[0]); err == nil {
					lens = append(lens, len(line))
				}
			}
		}
		for _, n := range lens {
			if n != lens[0] {
				t.Errorf("show %s: grid lines of different lengths %v", shape, lens)
				break
			}
		}
	}
}

// TestShowAgainstIndexer checks every grid, slices included, against layout.Offset.
func TestShowAgainstIndexer(t *testing.T) {
	for _, shape := range []string{
		"f32[2,3,5]{1,2,0:T(2,2)}",
		"f32[2,2,3,4]{0,1,2,3:T(2,2)}",
		"bf16[2,3,1004]{2,1,0:T(2,*,128)}",
		"f32[7]{0:T(4)}",
		"f32[]",
		"s4[5,9]{0,1:T(2,4)(2,1)E(4)}",
	} {
		args := []string{"show", shape, "--max", "1004"}
		out := mustRun(t, args...)
		ix, err := layout.Compile(layout.MustParse(shape))
		if err != nil {
			t.Fatal(err)
		}
		dims := ix.Dims()
		rank := len(dims)
		slices, headers := gridRows(t, out)
		lead := dims[:max(rank-2, 0)]
		li := make([]int64, len(lead))
		s := 0
		for {
			if s >= len(slices) {
				t.Fatalf("show %s: only %d grids:\n%s", shape, len(slices), out)
			}
			if rank > 2 {
				if want := "[" + joinInts(li) + ",:,:]"; headers[s] != want {
					t.Errorf("show %s: header %q, want %q", shape, headers[s], want)
				}
			}
			rows, cols := int64(1), int64(1)
			if rank >= 2 {
				rows = dims[rank-2]
			}
			if rank >= 1 {
				cols = dims[rank-1]
			}
			g := slices[s]
			if int64(len(g)) != rows {
				t.Fatalf("show %s slice %d: %d rows, want %d", shape, s, len(g), rows)
			}
			for r := range rows {
				if int64(len(g[r])) != cols {
					t.Fatalf("show %s slice %d row %d: %d columns, want %d", shape, s, r, len(g[r]), cols)
				}
				for c := range cols {
					idx := append(append([]int64(nil), li...), []int64{r, c}[2-min(rank, 2):]...)
					if want := ix.Offset(idx); g[r][c] != want {
						t.Errorf("show %s %v: %d, want %d", shape, idx, g[r][c], want)
					}
				}
			}
			s++
			if !layout.NextIndex(li, lead) {
				break
			}
		}
		if s != len(slices) {
			t.Errorf("show %s: %d grids, want %d", shape, len(slices), s)
		}
	}
}

func TestShowNotes(t *testing.T) {
	out := mustRun(t, "show", "f32[3,5]{1,0:T(2,2)}")
	if !strings.HasPrefix(out, "f32[3,5]{1,0:T(2,2)}: element offsets, rows: dim 0, columns: dim 1\n") {
		t.Errorf("show header:\n%s", out)
	}
	if !strings.HasSuffix(out, "footprint: 24 elements, 15 logical and 9 padding (37.5%)\n") {
		t.Errorf("show footer:\n%s", out)
	}
	out = mustRun(t, "show", "f32[2,0,3]")
	if !strings.Contains(out, "(no elements)") {
		t.Errorf("show of an empty array:\n%s", out)
	}
	// The limits can be raised.
	mustRun(t, "show", "f32[65,3]", "--max", "65")
	mustRun(t, "show", "f32[17,1,1]", "--max-slices", "17")
	mustRun(t, "show", "f32[64,64]")
	mustRun(t, "show", "f32[16,2,2]")
}
