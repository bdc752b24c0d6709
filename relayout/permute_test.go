package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// The 4-D permutation of the speed suite reads its source in runs of at least permRun
// bytes: the repeat innermost continues the source rows, the loop outside it the
// destination rows.
func TestPermuteOrderPerm3210(t *testing.T) {
	dst := layout.MustParse("f32[64,64,64,64]{0,1,2,3}")
	src := layout.MustParse("f32[64,64,64,64]{3,2,1,0}")
	p, err := NewPlan(dst, src, WithWorkers(1), WithBlockBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	k := transposeOf(p)
	if kindOf(p) != "transpose" || !k.permuted {
		t.Fatalf("%s: kernel %s, permuted %v", p, kindOf(p), k.permuted)
	}
	srcRun := k.cols * k.unit * 4
	if k.repSrc != k.cols*k.unit {
		t.Errorf("the repeat's source stride is %d, want %d (continuing the source rows)", k.repSrc, k.cols*k.unit)
	}
	srcRun *= k.rep
	if srcRun < permRun {
		t.Errorf("source runs of %d bytes, want at least %d", srcRun, permRun)
	}
	in := p.outer[len(p.outer)-1]
	if in.dstStr != k.rows*k.unit {
		t.Errorf("the loop outside the repeat has destination stride %d, want %d (continuing the destination rows)", in.dstStr, k.rows*k.unit)
	}
	if ws := k.rows * k.cols * k.unit * 8 * k.rep * in.size; ws > 1<<20 {
		t.Errorf("a group holds %d bytes, over the 1 MiB budget", ws)
	}
}

// A block of 128 rows (128 source streams) is cut to 32 rows of f32, and to 64 of
// bf16, whose 32-row destination rows would be one cache line.
func TestPermuteCapStreams(t *testing.T) {
	checkPlans(t, "kernel", func(p *Plan) string {
		return fmt.Sprintf("%s, permuted %v, %d rows", kindOf(p), transposeOf(p).permuted, transposeOf(p).rows)
	}, []planCase[string]{
		{"f32[128,9,17,24]{0,1,2,3}", "f32[128,9,17,24]{3,2,1,0}", "transpose, permuted true, 32 rows"},
		{"bf16[128,9,17,24]{0,1,2,3}", "bf16[128,9,17,24]{3,2,1,0}", "transpose, permuted true, 64 rows"},
		{"f32[64,64,64,64]{0,1,2,3}", "f32[64,64,64,64]{3,2,1,0}", "transpose, permuted true, 64 rows"},
	}, WithBlockBytes(1<<20))
}

// Random permutations of rank 3 to 5 with odd and even dims, large enough (or with
// blocks small enough) for permuteOrder to take them, against the per-element oracle,
// for every implementation, one and several workers, with and without non-temporal
// stores.
func TestPermuteOrderRandom(t *testing.T) {
	n := sized(60, 12, 4)
	r := rand.New(rand.NewPCG(17, 29))  // the cases
	rf := rand.New(rand.NewPCG(31, 37)) // their data, which takes a draw per implementation
	// Fixed cases first, at odd dims: the suite's 4-D reversal, a rank-5 permutation
	// that keeps a dim in place and an s8 reversal with small blocks; blocks of 128 rows
	// that capStreams cuts.
	fixed := []pairCase{
		{dst: layout.MustParse("f32[24,17,40,21]{0,1,2,3}"), src: layout.MustParse("f32[24,17,40,21]{3,2,1,0}"), opts: []Option{WithBlockBytes(16384)}},
		{dst: layout.MustParse("bf16[16,9,32,5,24]{0,2,1,3,4}"), src: layout.MustParse("bf16[16,9,32,5,24]{4,2,1,3,0}"), opts: []Option{WithBlockBytes(8192), WithWorkers(2)}, stream: true},
		{dst: layout.MustParse("s8[33,8,64,7,48]{0,1,2,3,4}"), src: layout.MustParse("s8[33,8,64,7,48]{4,3,2,1,0}"), opts: []Option{WithBlockBytes(8192), WithWorkers(3)}, stream: true},
		{dst: layout.MustParse("f32[128,9,17,24]{0,1,2,3}"), src: layout.MustParse("f32[128,9,17,24]{3,2,1,0}"), opts: []Option{WithBlockBytes(1 << 20), WithWorkers(2)}, stream: true},
		{dst: layout.MustParse("bf16[128,9,17,24]{0,2,1,3}"), src: layout.MustParse("bf16[128,9,17,24]{3,2,1,0}"), opts: []Option{WithBlockBytes(1 << 20)}},
	}
	sizes := []int64{3, 5, 8, 12, 16, 17, 24, 31, 32, 40, 64}
	dts := []layout.DType{layout.F32, layout.BF16, layout.S8}
	permuted := 0
	for i := 0; i < n+len(fixed); i++ {
		if i < len(fixed) {
			c := fixed[i]
			for _, k := range implementations() {
				checkPair(t, rf, c, k.Name)
			}
			if p, err := NewPlan(c.dst, c.src, c.opts...); err != nil || !transposeOf(p).permuted {
				t.Errorf("%s ← %s: permuteOrder did not take it (%v)", c.dst, c.src, err)
			}
			continue
		}
		rank := 3 + r.IntN(3)
		dims := randomDims(r, rank, sizes, 1<<19, 4)
		dt := dts[r.IntN(len(dts))]
		src := layout.Shape{DType: dt, Dims: dims, Layout: layout.Layout{MinorToMajor: randomPerm(r, rank)}}
		dst := layout.Shape{DType: dt, Dims: dims, Layout: layout.Layout{MinorToMajor: randomPerm(r, rank)}}
		// Block sizes are explicit (256 B to 1 MiB), so that the plans do not depend on
		// this machine's L2.
		opts := []Option{WithWorkers(1 + r.IntN(3)), WithBlockBytes(256 << r.IntN(13))}
		c := pairCase{dst: dst, src: src, opts: opts, stream: r.IntN(2) == 0}
		for _, k := range implementations() {
			checkPair(t, rf, c, k.Name)
		}
		if p, err := NewPlan(dst, src, opts...); err == nil && transposeOf(p).permuted {
			permuted++
		}
	}
	t.Logf("%d of %d random permutations blocked by permuteOrder", permuted, n)
	if permuted < n/10 {
		t.Errorf("only %d of %d random permutations took permuteOrder", permuted, n)
	}
}

// Loops of odd sizes group by divisors: 375 values of 8 columns (32 source bytes each
// in f32 → bf16 T(8,128)(2,1), 4000 rows a ragged dim) by 75, where powers of two left
// them ungrouped, the 32-row blocks read 32 bytes a row at a time.
func TestPermuteOrderOddGroups(t *testing.T) {
	for _, c := range [][2]string{
		{"bf16[4000,3000]{0,1:T(8,128)(2,1)}", "f32[4000,3000]{1,0}"},
		{"f32[60,70,50,90]{0,1,2,3}", "f32[60,70,50,90]{3,2,1,0}"},
	} {
		p := mustPlan(t, c[0], c[1], WithWorkers(1), WithBlockBytes(1<<20))
		k := transposeOf(p)
		if !k.permuted || k.repSrc != k.cols*k.unit || k.rep*k.cols*k.unit*int64(p.sbits/8) < permRun {
			t.Errorf("%s: permuted %v, repeat of %d with source stride %d over %d-unit rows: want source runs of %d bytes or more",
				p, k.permuted, k.rep, k.repSrc, k.cols*k.unit, permRun)
		}
	}
	for _, c := range []struct{ size, row, group, smaller int64 }{
		{64, 256, 8, 4}, {375, 32, 75, 25}, {67, 244, 67, 1}, {50, 360, 10, 5}, {7, 4096, 1, 1},
	} {
		if g := permGroup(c.size, c.row); g != c.group {
			t.Errorf("permGroup(%d, %d) = %d, want %d", c.size, c.row, g, c.group)
		}
		if s := smallerDivisor(c.size, c.group); c.group > 1 && s != c.smaller {
			t.Errorf("smallerDivisor(%d, %d) = %d, want %d", c.size, c.group, s, c.smaller)
		}
	}
}
