package sharding

import (
	"testing"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// BenchmarkFromAheadBand relays out one band step of the benchmark's conversion (four
// shards' columns of 1024 rows of f32[·,4096], each into a bf16 T(8,128)(2,1) band)
// straight from a read buffer as fromAhead does ("direct"), and by copying each
// window into a slab first as gatherAhead does ("slab"); "evicted" rewrites the buffer
// and then 512 MiB of other memory before each step, as the socket writes the buffer
// well before the band is converted. Bytes are the step's source bytes.
//
//	go test -run - -bench FromAheadBand ./sharding
func BenchmarkFromAheadBand(b *testing.B) {
	dst := layout.MustParse("bf16[8192,1024]{1,0:T(8,128)(2,1)}")
	p, err := newImagePlan(dst, layout.F32, 2<<20, []relayout.Option{relayout.WithWorkers(1)})
	if err != nil {
		b.Fatal(err)
	}
	const cols = 4096
	if !p.window([]int64{8192, cols}) {
		b.Fatal("no window plans")
	}
	bd := p.bands.Band(0)
	step := bd.Rows * cols * 4
	buf := make([]byte, step+aheadSlack)
	img := make([]byte, bd.DstLen)
	slab := make([]byte, bd.SrcLen)
	var evict []byte
	for _, evicted := range []bool{false, true} {
		name := "hot"
		if evicted {
			name = "evicted"
			evict = make([]byte, 512<<20)
		}
		for _, direct := range []bool{true, false} {
			how := "/slab"
			if direct {
				how = "/direct"
			}
			b.Run(name+how, func(b *testing.B) {
				b.SetBytes(step)
				for i := 0; b.Loop(); i++ {
					if evicted {
						b.StopTimer()
						for j := range buf[:step] {
							buf[j] = byte(i + j)
						}
						for j := 0; j < len(evict); j += 64 {
							evict[j]++
						}
						b.StartTimer()
					}
					for c := int64(0); c < cols/1024; c++ {
						if direct {
							if _, _, ok, err := p.win.from(0, img, buf, []int64{0, c * 1024}); !ok || err != nil {
								b.Fatal(ok, err)
							}
							continue
						}
						for r := int64(0); r < bd.Rows; r++ {
							copy(slab[r*4096:(r+1)*4096], buf[r*cols*4+c*4096:])
						}
						if err := p.bands.CopyBandBytes(0, img, slab); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
