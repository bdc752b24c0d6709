package tpu

import (
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestCheckBlock(t *testing.T) {
	c, err := CheckBlock(V5e, layout.BF16, []int64{4096, 4096}, []int64{256, 512})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Legal || !c.NativeAligned || c.NativeTile != [2]int64{16, 128} || c.BlockBytes != 256*512*2 ||
		!slices.Equal(c.Grid, []int64{16, 8}) || c.Steps != 128 || c.Partial != nil || c.VMEMBytes != 128<<20 || c.Nearest != nil {
		t.Errorf("%+v", c)
	}
	if got := c.Pipelined(3); got != 3*2*256*512*2 {
		t.Errorf("3 operands double-buffered: %d", got)
	}
	for _, tc := range []struct {
		dt           layout.DType
		array, block []int64
		legal, nat   bool
		problem      string
		nearest      []int64
		bytes        int64
	}{
		// Full dims are always legal; 8 rows of bf16 are legal but half a native tile.
		{layout.BF16, []int64{4096, 4096}, []int64{8, 4096}, true, false, "", []int64{16, 4096}, 8 * 4096 * 2},
		{layout.F32, []int64{1000, 1000}, []int64{1000, 1000}, true, true, "", nil, 1000 * 1024 * 4},
		{layout.F32, []int64{1000, 1000}, []int64{100, 1000}, false, false, "multiple of 8 or the array's 1000; 100 is neither", []int64{104, 1000}, 0},
		{layout.BF16, []int64{4096, 4096}, []int64{256, 500}, false, false, "multiple of 128 or the array's 4096; 500 is neither", []int64{256, 512}, 0},
		{layout.F32, []int64{3, 300}, []int64{3, 300}, true, true, "", nil, 4 * 384 * 4},
		// Sub-byte: s4 packs 8 rows to a word, so its native tile is (64,128).
		{layout.S4, []int64{4096, 4096}, []int64{32, 256}, true, false, "", []int64{64, 256}, 32 * 256 / 2},
		// Rank 1: equal, a multiple of 1024, or a power of two ≥ 128·p.
		{layout.BF16, []int64{100000}, []int64{256}, true, false, "", []int64{2048}, 0},
		{layout.BF16, []int64{100000}, []int64{128}, false, false, "power of two ≥ 256", []int64{256}, 0},
		{layout.F32, []int64{100000}, []int64{3072}, true, true, "", nil, 0},
		{layout.Pred, []int64{100000}, []int64{128}, true, false, "", []int64{1024}, 0},
		{layout.F32, []int64{1000}, []int64{1000}, true, true, "", nil, 0},
		// Leading dims are free.
		{layout.F32, []int64{7, 64, 256}, []int64{3, 64, 256}, true, true, "", nil, 3 * 64 * 256 * 4},
	} {
		c, err := CheckBlock(V5e, tc.dt, tc.array, tc.block)
		if err != nil {
			t.Errorf("%s %v %v: %v", tc.dt, tc.array, tc.block, err)
			continue
		}
		if c.Legal != tc.legal || c.NativeAligned != tc.nat || tc.problem != "" && !strings.Contains(strings.Join(c.Problems, "; "), tc.problem) ||
			tc.bytes > 0 && c.BlockBytes != tc.bytes || tc.nearest == nil && c.Nearest != nil ||
			tc.nearest != nil && (len(c.Nearest) == 0 || !slices.Equal(c.Nearest[0], tc.nearest)) {
			t.Errorf("%s %v block %v: legal %v aligned %v problems %q bytes %d nearest %v", tc.dt, tc.array, tc.block,
				c.Legal, c.NativeAligned, c.Problems, c.BlockBytes, c.Nearest)
		}
		for _, nb := range c.Nearest {
			again, err := CheckBlock(V5e, tc.dt, tc.array, nb)
			if err != nil || !again.Legal {
				t.Errorf("nearest %v of %v is not legal: %v %v", nb, tc.block, err, again.Problems)
			}
		}
	}
	c, _ = CheckBlock(V5e, layout.F32, []int64{1000, 1000}, []int64{256, 256})
	if !slices.Equal(c.Grid, []int64{4, 4}) || !slices.Equal(c.Partial, []int{0, 1}) {
		t.Errorf("grid %v partial %v", c.Grid, c.Partial)
	}
	for _, bad := range []struct {
		dt           layout.DType
		array, block []int64
		want         string
	}{
		{layout.F32, []int64{}, []int64{}, "rank ≥ 1"},
		{layout.F32, []int64{8, 8}, []int64{8}, "1 dims, the array 2"},
		{layout.F32, []int64{8, 8}, []int64{16, 8}, "larger than the array's 8"},
		{layout.F32, []int64{8, 8}, []int64{0, 8}, "block dim 0 is 0"},
		{layout.F64, []int64{8, 8}, []int64{8, 8}, "f64"},
	} {
		if _, err := CheckBlock(V5e, bad.dt, bad.array, bad.block); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v %v: %v, want %q", bad.array, bad.block, err, bad.want)
		}
	}
}
