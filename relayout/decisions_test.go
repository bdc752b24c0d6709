package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// Untilings walked in source order ask for the next tile ahead, tilings of narrow arrays
// for the next tile row's source rows (untilings whose row pairs are separate blocks, for
// the next 32 KiB of tiles); copies whose blocks read long source streams, and
// copies whose source fits in L2, do not.
func TestSourcePiece(t *testing.T) {
	checkPlans(t, "ahead", func(p *Plan) int64 { return p.ahead.piece }, []planCase[int64]{
		{"f32[8192,8192]{1,0}", "f32[8192,8192]{1,0:T(8,128)}", 4096},
		{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", 2048},
		{"f32[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", 2048},
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}", 0},                    // source rows: 32 KiB pieces
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}", 0},             // interleave
		{"f32[8192,8192]{0,1}", "f32[8192,8192]{1,0}", 0},                             // transpose
		{"f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,128)}", 0},                          // in L2
		{"f32[1024,1024]{1,0}", "f32[1024,1024]{1,0:T(8,128)}", 4096},                 // beyond L2, no streaming
		{"bf16[4096,3,4096]{2,1,0}", "bf16[4096,3,4096]{2,1,0:T(4,128)(2,1)}", 32768}, // two row-pair blocks a tile row
	})
}

// Untiling edge tiles (a row of 8191 bf16 pairs ends in a tile of 127 columns) copy
// their data prefix with the deinterleave kernel, not element by element.
func TestDeinterleaveClips(t *testing.T) {
	const want = "deinterleave, clip true on dim 1"
	checkPlans(t, "kernel", func(p *Plan) string {
		return fmt.Sprintf("%s, clip %v on dim %d", kindOf(p), baseOf(p).clip, baseOf(p).clipDim)
	}, []planCase[string]{
		{"bf16[64,8191]{1,0}", "bf16[64,8191]{1,0:T(8,128)(2,1)}", want},
		{"f32[64,8191]{1,0}", "bf16[64,8191]{1,0:T(8,128)(2,1)}", want},
		{"s8[64,8191]{1,0}", "s8[64,8191]{1,0:T(32,128)(4,1)}", want},
		{"f32[13,300]{1,0:T(8,128)}", "bf16[13,300]{1,0:T(8,128)(2,1)}", want},
	})
}

// Narrow arrays batch the rows of a tile, not their one or two tile columns.
func TestBatchOrder(t *testing.T) {
	checkPlans(t, "batches of", func(p *Plan) int64 { return baseOf(p).rep }, []planCase[int64]{
		{"f32[200000,200]{1,0:T(8,128)}", "f32[200000,200]{1,0}", 8},
		{"bf16[200000,200]{1,0:T(8,128)(2,1)}", "bf16[200000,200]{1,0}", 4},
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}", 64}, // 64 tile columns: too much for L1
	})
}

// A retiling's run spans several dims (row pairs, columns, pair halves); its edge
// tiles clip at the column loop rather than going element by element.
func TestSplitClip(t *testing.T) {
	p := mustPlan(t, "bf16[200,200]{1,0:T(16,128)(2,1)}", "bf16[200,200]{1,0:T(8,128)(2,1)}")
	k := baseOf(p)
	if kindOf(p) != "copy" || !k.clip || k.clipDim != 1 || len(k.clipOuter) != 1 || k.clipSize != 128 || k.clipUnit != 2 {
		t.Errorf("%v kernel, clip %v on dim %d, %d outer loops, %d values of %d elements; want copy clipped on dim 1 inside 1 loop, 128 values of 2",
			kindOf(p), k.clip, k.clipDim, len(k.clipOuter), k.clipSize, k.clipUnit)
	}
}

// A pair or quad cut by the end of its rows' dim (three rows in tiles of four) unpacks
// its rows past the data into a worker's buffer; without one it went element by element.
func TestPartialUnpackBuffer(t *testing.T) {
	const want = "deinterleave, buffer true"
	checkPlans(t, "kernel", func(p *Plan) string {
		return fmt.Sprintf("%s, buffer %v", kindOf(p), baseOf(p).stage != nil)
	}, []planCase[string]{
		{"bf16[64,3,256]{2,1,0}", "bf16[64,3,256]{2,1,0:T(4,128)(2,1)}", want},
		{"s8[64,5,256]{2,1,0}", "s8[64,5,256]{2,1,0:T(32,128)(4,1)}", want},
	})
}

// Reading a transposed tiling back ({0,1:T(8,128)} → {1,0}) transposes 8-wide blocks:
// where the simd set has Transpose32FromTiles's kernels, it takes two at a time, whose
// destination rows are whole lines, so they are not built in scratch; elsewhere, and
// for converting ones, they are built there and stored in long runs. Blocks that go
// one at a time ask for the next block's tile, a page or more away.
func TestStagedTranspose(t *testing.T) {
	for _, n := range []int{8192, 1024} { // streamed, and in the last-level cache
		p := mustPlan(t, fmt.Sprintf("f32[%d,%d]{1,0}", n, n), fmt.Sprintf("f32[%d,%d]{0,1:T(8,128)}", n, n))
		if k, tiles := transposeOf(p), p.k().TileKernels(8); kindOf(p) != "transpose" || (k.conv == nil) != tiles || (k.fromTiles != nil) != tiles || k.blockAhead != 4096 {
			t.Errorf("%d²: %v kernel, staged %v, from tiles %v (kernels %v), block ahead %d; want a transpose from tiles if there are kernels, else staged, 4096 ahead", n, kindOf(p), k.conv != nil, k.fromTiles != nil, tiles, k.blockAhead)
		}
	}
	p := mustPlan(t, "f32[8192,8192]{1,0}", "bf16[8192,8192]{0,1:T(8,128)(2,1)}")
	if k := transposeOf(p); kindOf(p) != "transpose" || k.conv == nil || k.convFirst || k.blockAhead != 2048 {
		t.Errorf("%v kernel, staged %v (first %v), block ahead %d; want a transpose staged after, 2048 ahead", kindOf(p), k.conv != nil, k.convFirst, k.blockAhead)
	}
}

// Streaming same-type transposes into destination rows that are not whole lines apart
// build their rows in scratch (stagesOddRows); rows whole lines apart, and plans that
// do not stream, store in place.
func TestStagedOddRows(t *testing.T) {
	checkPlans(t, "kernel", func(p *Plan) string {
		return fmt.Sprintf("%s, staged %v", kindOf(p), transposeOf(p).conv != nil)
	}, []planCase[string]{
		{"f32[63,65,67,61]{0,1,2,3}", "f32[63,65,67,61]{3,2,1,0}", "transpose, staged true"},
		{"f32[8191,8190]{0,1}", "f32[8191,8190]{1,0}", "transpose, staged true"},
		{"f32[64,64,64,64]{0,1,2,3}", "f32[64,64,64,64]{3,2,1,0}", "transpose, staged false"}, // rows whole lines apart
		{"f32[8192,8192]{0,1}", "f32[8192,8192]{1,0}", "transpose, staged false"},
		{"f32[63,65,7,61]{0,1,2,3}", "f32[63,65,7,61]{3,2,1,0}", "transpose, staged false"}, // in the cache: no streaming
	}, WithWorkers(1))
	// Against the reference, streaming forced on small arrays of the same kind.
	r := rand.New(rand.NewPCG(71, 73))
	for _, c := range []struct {
		dst, src string
		block    int
	}{
		{"f32[15,13,11,9]{0,1,2,3}", "f32[15,13,11,9]{3,2,1,0}", 8192},
		{"f32[31,15,67,19]{0,1,2,3}", "f32[31,15,67,19]{3,2,1,0}", 65536},
		{"f32[37,29]{0,1}", "f32[37,29]{1,0}", 1024},
		{"bf16[45,33]{0,1}", "bf16[45,33]{1,0}", 1024},
		{"s8[70,33]{0,1}", "s8[70,33]{1,0}", 1024},
	} {
		for _, k := range implementations() {
			for _, w := range []int{1, 2} {
				c := pairCase{dst: layout.MustParse(c.dst), src: layout.MustParse(c.src), opts: []Option{WithWorkers(w), WithBlockBytes(c.block)}, stream: true}
				if p := planFor(t, c, k.Name); transposeOf(p).conv == nil {
					t.Errorf("%s, streaming forced: not staged", p)
				}
				checkPair(t, r, c, k.Name)
			}
		}
	}
}

// Packing wide arrays (bf16 8192² → T(8,128)(2,1): two 16 KiB rows a call) asks, as
// each call reads its rows, for the same part of the next call's rows; copies,
// packings whose next rows planAhead asks for already, and calls of 2 KiB or less do
// not.
func TestPackingAsksNextRows(t *testing.T) {
	checkPlans(t, "bytes asked ahead", func(p *Plan) int64 { return packingOf(p).nextRows }, []planCase[int64]{
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}", 2 * 16384},
		{"s8[8192,8192]{1,0:T(32,128)(4,1)}", "s8[8192,8192]{1,0}", 4 * 8192},
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "f32[8192,8192]{1,0}", 0},    // converts
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}", 0},          // copy
		{"bf16[200000,200]{1,0:T(8,128)(2,1)}", "bf16[200000,200]{1,0}", 0}, // planAhead's
		{"bf16[8192,8192]{1,0}", "bf16[8192,8192]{1,0:T(8,128)(2,1)}", 0},   // deinterleave
		{"bf16[64,1024]{1,0:T(8,128)(2,1)}", "bf16[64,1024]{1,0}", 0},       // in L2
		{"bf16[1024,512]{1,0:T(8,128)(2,1)}", "bf16[1024,512]{1,0}", 0},     // 2 KiB a call
		{"bf16[256,8192]{1,0:T(8,128)(2,1)}", "bf16[256,8192]{1,0}", 32768}, // beyond L2, no streaming
	})
}

// The calls ask for the next call's rows: over a whole copy, every source byte of the
// repeats that are whole tiles of data, but the first call's rows', is asked for
// exactly once, and none beyond.
func TestPackingAsksEachRowOnce(t *testing.T) {
	for _, cols := range []int{8192, 8300} { // 8300: edge blocks, their whole tiles too
		src := buffer.MustNew(layout.MustParse(fmt.Sprintf("bf16[32,%d]{1,0}", cols)))
		dst := buffer.MustNew(layout.MustParse(fmt.Sprintf("bf16[32,%d]{1,0:T(8,128)(2,1)}", cols)))
		p, err := NewPlan(dst.Shape, src.Shape, WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		p.stream, p.readAhead = true, true
		p.settle(p.kern)
		pk := packingOf(p)
		if pk.nextRows == 0 {
			t.Fatalf("%v: asks for nothing ahead", p)
		}
		asked := make([]int, len(src.Data))
		pair := pk.pair
		pk.pair = func(d, a, b []byte, n int, r simd.Rows) {
			for _, row := range [][]byte{a, b} {
				for j := 0; j < r.N && r.Ahead != 0; j++ {
					from := cap(src.Data) - cap(row) + j*r.SrcStride + int(r.Ahead)
					for i := from; i < min(from+2*n, len(asked)); i++ {
						asked[i]++
					}
				}
			}
			pair(d, a, b, n, r)
		}
		if err := p.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		for i, n := range asked {
			row, col := i/(2*cols), i%(2*cols)/2
			want := 0
			if row >= 2 && col < cols/128*128 {
				want = 1
			}
			if n != want {
				t.Fatalf("%d columns: source byte %d (row %d, column %d) asked for %d times, want %d", cols, i, row, col, n, want)
			}
		}
	}
}

// Packings that ask ahead copy exactly, odd sizes, edge blocks and several workers
// included.
func TestAskingPackingsExact(t *testing.T) {
	checkPairs(t, rand.New(rand.NewPCG(41, 42)), [][2]string{
		{"bf16[13,8300]{1,0:T(8,128)(2,1)}", "bf16[13,8300]{1,0}"},
		{"bf16[13,8192]{1,0:T(8,128)(2,1)}", "bf16[13,8192]{1,0}"},
		{"s8[37,4500]{1,0:T(32,128)(4,1)}", "s8[37,4500]{1,0}"},
		{"u16[9,4200]{1,0:T(8,128)(2,1)}", "bf16[9,4200]{1,0}"},
	}, pairCase{opts: []Option{WithWorkers(1)}, stream: true}, pairCase{opts: []Option{WithWorkers(3)}, stream: true})
}

// Plain transposes stream from four L2s on (f32 1024² on a 1 MiB L2), inside the
// last-level cache too; converting and staged ones, those into tiles by the tile
// kernels, those from tiles into rows not a page apart, and smaller ones, do not.
func TestTransposeStreams(t *testing.T) {
	rows := transposeStreamingBytes() / 4096 // f32 rows of 1024: the threshold's bytes
	if 2*(transposeStreamingBytes()+4096) >= streamingBytes() {
		t.Skip("no room between four L2s and the last-level cache on this machine")
	}
	at := func(rows int64, s string) string { return fmt.Sprintf(s, rows) }
	tiles := simd.Default().TileKernels(8)
	checkPlans(t, "streams", streams, []planCase[bool]{
		{at(rows, "f32[%d,1024]{0,1}"), at(rows, "f32[%d,1024]{1,0}"), true},
		{at(rows-8, "f32[%d,1024]{0,1}"), at(rows-8, "f32[%d,1024]{1,0}"), false},      // below the threshold
		{at(rows, "s8[%d,1024]{0,1}"), at(rows, "s8[%d,1024]{1,0}"), false},            // a quarter of the bytes
		{at(rows, "bf16[%d,1024]{0,1}"), at(rows, "f32[%d,1024]{1,0}"), false},         // converts
		{at(rows, "f32[%d,1024]{1,0:T(8,128)}"), at(rows, "f32[%d,1024]{1,0}"), false}, // no transpose
		// A tiling streams unless the tile kernels take it; reading tiles back, only with
		// them (else staged) and into rows a page apart.
		{at(rows, "f32[%d,1024]{0,1:T(8,128)}"), at(rows, "f32[%d,1024]{1,0}"), !tiles},
		{at(rows, "f32[%d,1024]{1,0}"), at(rows, "f32[%d,1024]{0,1:T(8,128)}"), tiles},
		{at(2*rows, "f32[%d,512]{1,0}"), at(2*rows, "f32[%d,512]{0,1:T(8,128)}"), false}, // rows 2 KiB apart
	})
}

func streams(p *Plan) bool { return p.stream }

// Copies stream once source and destination together reach the last-level cache, the
// destination alone smaller.
func TestStreams(t *testing.T) {
	rows := streamingBytes() / 2 / 4096 // f32 rows of 1024 on each side: the LLC together
	checkPlans(t, "streams", streams, []planCase[bool]{
		{fmt.Sprintf("f32[%d,1024]{1,0:T(8,128)}", rows), fmt.Sprintf("f32[%d,1024]{1,0}", rows), true},
		{fmt.Sprintf("f32[%d,1024]{1,0:T(8,128)}", rows-8), fmt.Sprintf("f32[%d,1024]{1,0}", rows-8), false},
	})
}

// The streaming threshold counts at most llcPerCPU of last-level cache a logical CPU:
// a 2-vCPU VM reporting its host's 260 MiB L3 streams from 48 MiB, not 130 MiB, and
// machines whose OS sees the cores the cache serves keep half the reported cache.
func TestStreamingBytesPerCPU(t *testing.T) {
	defer func(c func() (int, int), n func() int) { cacheBytes, numCPU = c, n }(cacheBytes, numCPU)
	defer SetWisdom(nil)() // the default rule, whatever TPULAYOUT_WISDOM names
	for _, c := range []struct {
		l2, l3, cpus int
		want         int64
	}{
		{2 << 20, 260 << 20, 2, 48 << 20},  // a VM reporting its host's whole L3
		{2 << 20, 260 << 20, 1, 24 << 20},  // one CPU
		{2 << 20, 260 << 20, 8, 130 << 20}, // 384 MiB of bound: the reported cache
		{1 << 20, 32 << 20, 2, 16 << 20},   // the EPYC VM: unchanged
		{1 << 20, 0, 2, 2 << 20},           // no L3 reported: two L2s
		{2 << 20, 260 << 20, 0, 24 << 20},  // a CPU count below one counts as one
	} {
		cacheBytes = func() (int, int) { return c.l2, c.l3 }
		numCPU = func() int { return c.cpus }
		if got := streamingBytes(); got != c.want {
			t.Errorf("L2 %d MiB, L3 %d MiB, %d CPUs: streaming from %d MiB, want %d MiB", c.l2>>20, c.l3>>20, c.cpus, got>>20, c.want>>20)
		}
	}
}

// Tiling reads each source row from end to end in one kernel call: the repeat walks the
// row's tiles (source stride one run), and the loop outside it the tile's rows.
func TestGroupStreamsTilingWholeRows(t *testing.T) {
	const whole = "the whole row"
	checkPlans(t, "a call reads", func(p *Plan) string {
		if k := baseOf(p); k.repSrc != k.n || k.n*k.rep < p.src.Shape().Dims[1] {
			return fmt.Sprintf("%d runs of %d elements at source stride %d", k.rep, k.n, k.repSrc)
		}
		return whole
	}, []planCase[string]{
		{"f32[8192,8192]{1,0:T(8,128)}", "f32[8192,8192]{1,0}", whole},
		{"bf16[8192,8192]{1,0:T(8,128)(2,1)}", "bf16[8192,8192]{1,0}", whole},
		{"s8[8192,8192]{1,0:T(32,128)(4,1)}", "s8[8192,8192]{1,0}", whole},
		{"f32[1000,1000]{1,0:T(8,128)}", "f32[1000,1000]{1,0}", whole}, // ragged: 8 tiles, the last cut
	}, WithWorkers(1))
}

// Untiling walks the source in order and leaves the destination rows of a pass as they
// are when there are no more than 16 of them.
func TestGroupStreamsUntilingUngrouped(t *testing.T) {
	p := mustPlan(t, "f32[8192,8192]{1,0}", "f32[8192,8192]{1,0:T(8,128)}", WithWorkers(1))
	if k := baseOf(p); k.rep != 8 || k.repDst != 8192 {
		t.Errorf("untiling repeats %d runs at destination stride %d; want the tile's 8 rows at 8192", k.rep, k.repDst)
	}
}

// TestStagedRun checks that staged edge runs take the whole run where the source
// allows (the kernel's reads past the data are overwritten by padding) and stay exact,
// down to the last block, whose whole run would read past the source.
func TestStagedRun(t *testing.T) {
	checkPairs(t, rand.New(rand.NewPCG(17, 2)), [][2]string{
		{"f32[37,200]{1,0:T(8,128)}", "f32[37,200]{1,0}"},
		{"bf16[40,200]{1,0:T(8,128)(2,1)}", "bf16[40,200]{1,0}"},
		{"bf16[41,72]{1,0:T(8,128)(2,1)}", "bf16[41,72]{1,0}"},
		{"bf16[16,3,100]{2,1,0:T(4,128)(2,1)}", "f32[16,3,100]{2,1,0}"},
		{"bf16[63,250]{1,0:T(16,128)(2,1)}", "bf16[63,250]{1,0:T(8,128)(2,1)}"},
	}, pairCase{stream: true})
	p := mustPlan(t, "f32[16,200]{1,0:T(8,128)}", "f32[16,200]{1,0}")
	src := make([]byte, 16*200*4)
	if got := p.stagedRun(src, 128, 72, 128, 8); got != 128 {
		t.Errorf("first tile row's edge: stagedRun = %d, want the whole run 128", got)
	}
	if got := p.stagedRun(src, 8*200+128, 72, 128, 8); got != 72 {
		t.Errorf("last tile row's edge: stagedRun = %d, want the data 72", got)
	}
}

// Unpacking without a conversion pass calls its simd kernel straight from the loop
// (unpackRepeats); packings and unpackings that convert through scratch, and other
// kernels, go through repeats.
func TestDirectUnpack(t *testing.T) {
	direct := func(p *Plan) bool {
		k, ok := p.kern.(*packingKernel)
		return ok && k.directUnpack()
	}
	checkPlans(t, "direct unpack", direct, []planCase[bool]{
		{"bf16[1024,1024]{1,0}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}", true},
		{"s8[1024,1024]{1,0}", "s8[1024,1024]{1,0:T(32,128)(4,1)}", true},   // quads
		{"f32[1024,1024]{1,0}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}", true}, // a fused conversion
		{"f16[1024,1024]{1,0}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}", false},
		{"bf16[1024,1024]{1,0:T(8,128)(2,1)}", "bf16[1024,1024]{1,0}", false}, // packs
		{"f32[1024,1024]{1,0}", "f32[1024,1024]{1,0:T(8,128)}", false},        // copies
	})
}
