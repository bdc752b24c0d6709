package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// Transposes whose blocks reach past the data (odd dims, dims the block size does not
// divide, tiled destinations with padding) clip those blocks instead of walking them
// element by element; against the per-element oracle, with every padding option and
// conversions through scratch.
func TestTransposeEdgeRandom(t *testing.T) {
	n := sized(150, 30, 10)
	r := rand.New(rand.NewPCG(41, 43))
	rf := rand.New(rand.NewPCG(47, 53))
	type dpair struct {
		dst, src layout.DType
		tile     string
	}
	dpairs := []dpair{
		{layout.F32, layout.F32, "T(8,128)"}, {layout.BF16, layout.BF16, "T(8,128)(2,1)"}, {layout.S8, layout.S8, "T(32,128)(4,1)"},
		{layout.BF16, layout.F32, "T(8,128)(2,1)"}, {layout.F32, layout.BF16, "T(8,128)"},
	}
	sizes := []int64{1, 3, 7, 9, 17, 33, 61, 100, 130, 257}
	clipped := 0
	for i := range n {
		rank := 2 + r.IntN(3)
		dims := randomDims(r, rank, sizes, 1<<18, 3)
		dp := dpairs[r.IntN(len(dpairs))]
		src := layout.Shape{DType: dp.src, Dims: dims, Layout: layout.Layout{MinorToMajor: randomPerm(r, rank)}}
		dl := layout.Layout{MinorToMajor: randomPerm(r, rank)}
		if i%3 == 0 {
			dl = layout.MustParse(fmt.Sprintf("%s[1]{0:%s}", dp.dst, dp.tile)).Layout
			dl.MinorToMajor = randomPerm(r, rank)
		}
		dst := layout.Shape{DType: dp.dst, Dims: dims, Layout: dl}
		opts := []Option{WithWorkers(1 + r.IntN(3)), WithBlockBytes(256 << r.IntN(8))}
		switch r.IntN(3) {
		case 0:
			opts = append(opts, WithPadLeave())
		case 1:
			opts = append(opts, WithPadValue(2))
		}
		c := pairCase{dst: dst, src: src, opts: opts, stream: r.IntN(2) == 0}
		if _, err := NewPlan(dst, src, opts...); err != nil {
			continue // a tiling this rank does not take
		}
		for _, k := range implementations() {
			checkPair(t, rf, c, k.Name)
		}
		if p, _ := NewPlan(dst, src, opts...); transposeOf(p).tedge.ok && ragged(p) {
			clipped++
		}
	}
	t.Logf("%d of %d random transposes clip their edge blocks", clipped, n)
	if clipped < n/4 {
		t.Errorf("only %d of %d random transposes clip their edge blocks", clipped, n)
	}
}

func ragged(p *Plan) bool {
	for _, r := range p.ragged {
		if r {
			return true
		}
	}
	return false
}

// The transposes of the speed issue's odd cases clip their edge blocks.
func TestTransposeEdgeClips(t *testing.T) {
	const want = "transpose, ragged true, clipping true"
	checkPlans(t, "kernel", func(p *Plan) string {
		return fmt.Sprintf("%s, ragged %v, clipping %v", kindOf(p), ragged(p), transposeOf(p).tedge.ok)
	}, []planCase[string]{
		{"f32[1000,1000]{0,1}", "f32[1000,1000]{1,0}", want},
		{"f32[4000,3000]{0,1}", "f32[4000,3000]{1,0}", want},
		{"bf16[1000,1000]{0,1}", "f32[1000,1000]{1,0}", want},
		{"f32[300,200]{0,1:T(8,128)}", "f32[300,200]{1,0}", want},
		{"bf16[4000,3000]{0,1:T(8,128)(2,1)}", "f32[4000,3000]{1,0}", want}, // units of two along the unragged x dim
	}, WithWorkers(1))
}

// transLines, whose calls overlap, writes what one transpose call writes, for every
// unit width and every kernel set, at sizes around the line's worth of units.
func TestTransLines(t *testing.T) {
	r := rand.New(rand.NewPCG(59, 61))
	sizes := []int{1, 3, 4, 5, 9, 11, 15, 16, 17, 20, 31, 32, 33, 63, 64, 65, 100}
	for _, dt := range []string{"f32", "bf16", "s8"} {
		for _, ks := range implementations() {
			p, err := NewPlan(layout.MustParse(dt+"[256,256]{0,1}"), layout.MustParse(dt+"[256,256]{1,0}"), WithKernel(ks.Name))
			if err != nil || kindOf(p) != "transpose" || transposeOf(p).unit != 1 {
				t.Fatalf("%s: %v, want a transpose of single elements", p, err)
			}
			w := p.dbits / 8
			for _, rows := range sizes {
				for _, cols := range sizes {
					ss, ds := cols*w+w*r.IntN(3), rows*w+w*r.IntN(3)
					src := make([]byte, rows*ss)
					for i := range src {
						src[i] = byte(r.Uint32())
					}
					got, want := make([]byte, cols*ds), make([]byte, cols*ds)
					p.transLines(transposeOf(p), got, ds, src, ss, rows, cols)
					for i := range rows {
						for j := range cols {
							copy(want[j*ds+i*w:][:w], src[i*ss+j*w:])
						}
					}
					if string(got) != string(want) {
						t.Fatalf("%s %s: transLines of %d×%d differs from the transpose", dt, ks.Name, rows, cols)
					}
				}
			}
		}
	}
}
