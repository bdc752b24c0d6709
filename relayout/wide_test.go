package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// Streaming same-type pair untilings into rows whole words but not lines apart take
// the wide staging (bf16 [8191,8190]: rows 16380 bytes apart); aligned rows, odd
// strides and bf16 → f32 do not.
func TestWidePlanned(t *testing.T) {
	checkPlans(t, "wide staging", func(p *Plan) bool { return packingOf(p).wide != nil }, []planCase[bool]{
		{"bf16[8191,8190]{1,0}", "bf16[8191,8190]{1,0:T(8,128)(2,1)}", true},
		{"f16[4096,50250]{1,0}", "f16[4096,50250]{1,0:T(8,128)(2,1)}", true},
		{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", false}, // rows whole lines apart
		{"bf16[8191,8191]{1,0}", "bf16[8191,8191]{1,0:T(8,128)(2,1)}", false}, // rows 2 bytes off words
		{"f32[8191,8190]{1,0}", "bf16[8191,8190]{1,0:T(8,128)(2,1)}", false},  // the fused bf16 → f32 kernel
		{"bf16[200000,200]{1,0}", "bf16[200000,200]{1,0:T(8,128)(2,1)}", true},
		{"bf16[64,8190]{1,0}", "bf16[64,8190]{1,0:T(8,128)(2,1)}", false}, // in the cache: no streaming
	})
}

// The wide staging against the reference: ragged rows and columns, tile rows of
// fewer or more than wideTiles interior tiles, a leading dim, several workers (whose
// ranges stage or not, see wideShared), and destinations at every even offset from a
// line.
func TestWideUntilings(t *testing.T) {
	defer func(shared bool) { wideShared = shared }(wideShared)
	r := rand.New(rand.NewPCG(31, 32))
	shapes := []string{
		"bf16[%s]{1,0:T(8,128)(2,1)}|bf16[%s]{1,0}|33,8190",
		"f16[%s]{1,0:T(8,128)(2,1)}|f16[%s]{1,0}|57,8190",
		"u16[%s]{1,0:T(8,128)(2,1)}|u16[%s]{1,0}|40,8186",
		"bf16[%s]{2,1,0:T(8,128)(2,1)}|bf16[%s]{2,1,0}|2,17,8190",
		"f16[%s]{1,0:T(8,128)(2,1)}|f16[%s]{1,0}|2001,200",
		"bf16[%s]{1,0:T(8,128)(2,1)}|bf16[%s]{1,0}|1003,330",
	}
	step := sized(2, 14, 62)
	for _, s := range shapes {
		var src, dst, dims string
		fmt.Sscanf(replaceBars(s), "%s %s %s", &src, &dst, &dims)
		c := pairCase{dst: layout.MustParse(fmt.Sprintf(dst, dims)), src: layout.MustParse(fmt.Sprintf(src, dims)), stream: true}
		for _, v := range []struct {
			workers int
			shared  bool
		}{{1, false}, {3, false}, {3, true}} {
			workers := v.workers
			wideShared = v.shared
			c.opts = []Option{WithWorkers(workers)}
			for _, k := range implementations() {
				p := planFor(t, c, k.Name)
				if packingOf(p).wide == nil {
					t.Fatalf("%s ← %s: no wide staging", c.dst, c.src)
				}
				for off := 0; off < 64; off += step {
					checkPairAt(t, r, c, k.Name, off)
				}
				d, sb := buffer.MustNew(c.dst), buffer.MustNew(c.src)
				if n := testing.AllocsPerRun(10, func() { _ = p.Copy(d, sb) }); n != 0 {
					t.Errorf("%s ← %s, %d workers: Copy allocates %v times", c.dst, c.src, workers, n)
				}
			}
		}
	}
}

func replaceBars(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == '|' {
			b[i] = ' '
		}
	}
	return string(b)
}
