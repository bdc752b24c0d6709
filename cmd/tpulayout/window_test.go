package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestShowWindow checks that --rows and --cols show exactly the offsets the layout's
// formula gives for the window, for arrays far over the grid limit.
func TestShowWindow(t *testing.T) {
	cases := []struct {
		shape, rows, cols string
		lead              []int64 // leading index of the (only) slice
		r0, r1, c0, c1    int64
	}{
		{"bf16[4096,4096]{1,0:T(8,128)(2,1)}", "6:10", "126:131", nil, 6, 10, 126, 131},
		{"bf16[4096,4096]{1,0:T(8,128)(2,1)}", "4090:", ":3", nil, 4090, 4096, 0, 3},
		{"f32[1000,7]{0,1:T(8,128)}", "998:1000", "", nil, 998, 1000, 0, 7},
		{"s8[1,300,300]{2,1,0:T(32,128)(4,1)}", "30:34", "250:260", []int64{0}, 30, 34, 250, 260},
		{"f32[5000]{0:T(256)}", "", "4990:5000", nil, 0, 1, 4990, 5000},
	}
	for _, c := range cases {
		args := []string{"show", c.shape}
		if c.rows != "" {
			args = append(args, "--rows", c.rows)
		}
		if c.cols != "" {
			args = append(args, "--cols", c.cols)
		}
		out := mustRun(t, args...)
		ix, err := layout.Compile(layout.MustParse(c.shape))
		if err != nil {
			t.Fatal(err)
		}
		rank := ix.Rank()
		var want [][]int64
		for r := c.r0; r < c.r1; r++ {
			var row []int64
			for col := c.c0; col < c.c1; col++ {
				idx := append(append([]int64{}, c.lead...), r, col)
				if rank == 1 {
					idx = []int64{col}
				}
				row = append(row, ix.Offset(idx))
			}
			want = append(want, row)
		}
		slices, _ := gridRows(t, out)
		if len(slices) != 1 || !reflect.DeepEqual(slices[0], want) {
			t.Errorf("tpulayout %q:\n%s\nwant rows %v", args, out, want)
		}
		if c.rows != "" && !strings.Contains(out, "showing rows ") || c.cols != "" && !strings.Contains(out, "columns ") {
			t.Errorf("tpulayout %q: the caption does not name the window:\n%s", args, out)
		}
	}

	// The SVG labels rows and columns with their indices in the array, and hatches the
	// padding only where the window reaches the array's edge.
	dir := t.TempDir()
	svg := filepath.Join(dir, "w.svg")
	mustRun(t, "show", "f32[20,300]{1,0:T(8,128)}", "--rows", "16:20", "--cols", "290:300", "--svg", svg)
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, ">299</text>") || !strings.Contains(s, ">19</text>") || !strings.Contains(s, `class="pad"`) ||
		!strings.Contains(s, "dim 0 from 20 to 24") || !strings.Contains(s, "dim 1 from 300 to 384") {
		t.Errorf("window SVG at the edge lacks labels or padding:\n%s", s)
	}
	mustRun(t, "show", "f32[20,300]{1,0:T(8,128)}", "--rows", "0:4", "--cols", "0:10", "--svg", svg)
	if b, _ := os.ReadFile(svg); strings.Contains(string(b), `class="pad"`) {
		t.Errorf("window SVG inside the array hatches padding")
	}

	// Bad windows.
	big := "bf16[4096,4096]{1,0:T(8,128)(2,1)}"
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"show", big}, []string{"raise --max", "--rows A:B --cols C:D"}},
		{[]string{"show", big, "--rows", "0:8"}, []string{"a window of 8 rows × 4096 columns", "more than the limit of 64"}},
		{[]string{"show", big, "--rows", "8"}, []string{`bad --rows "8"`, "want A:B"}},
		{[]string{"show", big, "--rows", "x:8", "--cols", "0:8"}, []string{`bad --rows "x:8"`, `"x" is not a row number`}},
		{[]string{"show", big, "--rows", "0:8", "--cols", "-3:8"}, []string{`bad --cols "-3:8"`, `"-3" is not a column number`}},
		{[]string{"show", big, "--rows", "8:8", "--cols", "0:8"}, []string{"--rows 8:8 is empty"}},
		{[]string{"show", big, "--rows", "9:8", "--cols", "0:8"}, []string{"--rows 9:8 is empty"}},
		{[]string{"show", big, "--rows", "4090:4100", "--cols", "0:8"}, []string{"--rows 4090:4100 reaches past the end", "dim 0 has 4096 rows"}},
		{[]string{"show", big, "--rows", "0:8", "--cols", "4000:"}, []string{"a window of 8 rows × 96 columns"}},
		{[]string{"show", "f32[300]", "--rows", "0:1"}, []string{"--rows 0:1: an array of rank 1 shows no rows"}},
		{[]string{"show", "f32[]", "--cols", "0:1"}, []string{"--cols 0:1: an array of rank 0 shows no columns"}},
	} {
		wantUsageError(t, c.args, c.wants...)
	}
}
