package relayout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// reference relays out src into dst element by element with nothing but layout's index
// math: every logical index is read at the source offset and written at the destination
// offset, then every destination slot that holds no element gets the fill.
func reference(dst, src *buffer.Buffer, fill uint64, leave bool) {
	di, si := dst.Indexer(), src.Indexer()
	dbits, sbits := di.ElementBits(), si.ElementBits()
	w := walkOf(dst.Shape, src.Shape, di, si)
	switch {
	case dst.Shape.DType == src.Shape.DType && dbits == sbits && dbits%8 == 0:
		n := int64(dbits / 8)
		for i, soff := range w.src {
			copy(dst.Data[w.dst[i]*n:(w.dst[i]+1)*n], src.Data[soff*n:])
		}
	default:
		for i, soff := range w.src {
			v := loadWide(src.Data, soff, sbits)
			if dst.Shape.DType != src.Shape.DType {
				v[0] = buffer.Widen(dst.Shape.DType, dbits, buffer.ConvertElement(dst.Shape.DType, src.Shape.DType, v[0]))
			} else if dst.Shape.DType == layout.Pred && dbits < sbits && v[0] != 0 {
				v[0] = 1 // a nonzero pred is true in any width, not only an odd one
			}
			storeWide(dst.Data, w.dst[i], dbits, v)
		}
	}
	if leave {
		return
	}
	for _, off := range w.pad {
		storeWide(dst.Data, off, dbits, [2]uint64{fill})
	}
	if tail := di.FootprintElements() * int64(dbits) % 8; tail != 0 { // the last byte's bits beyond every slot
		dst.Data[len(dst.Data)-1] &= byte(1)<<tail - 1
	}
}

// walk is the oracle's walk of a shape pair: each logical element's offset in the
// source and the destination, in index order, and the destination's slots that hold
// no element.
type walk struct {
	dstShape, srcShape layout.Shape
	dst, src, pad      []int64
}

// lastWalk keeps the walk of the last pair checked, up to maxKeptWalk elements: sweeps
// check one pair many times (kernels, workers, destination offsets), and the index math
// is most of a check's time.
var lastWalk struct {
	sync.Mutex
	w *walk
}

const maxKeptWalk = 1 << 21

func walkOf(dst, src layout.Shape, di, si *layout.Indexer) *walk {
	lastWalk.Lock()
	defer lastWalk.Unlock()
	if w := lastWalk.w; w != nil && reflect.DeepEqual(w.dstShape, dst) && reflect.DeepEqual(w.srcShape, src) {
		return w
	}
	n := di.LogicalElements()
	w := &walk{dstShape: dst, srcShape: src, dst: make([]int64, 0, n), src: make([]int64, 0, n)}
	idx := make([]int64, di.Rank())
	for n > 0 {
		w.src = append(w.src, si.Offset(idx))
		w.dst = append(w.dst, di.Offset(idx))
		if !layout.NextIndex(idx, di.Dims()) {
			break
		}
	}
	written := make([]bool, di.FootprintElements())
	for _, off := range w.dst {
		written[off] = true
	}
	for off, ok := range written {
		if !ok {
			w.pad = append(w.pad, int64(off))
		}
	}
	if n <= maxKeptWalk {
		lastWalk.w = w
	}
	return w
}

func loadWide(b []byte, off int64, bits int) [2]uint64 {
	if bits == 128 {
		return [2]uint64{buffer.LoadBits(b, 2*off, 64), buffer.LoadBits(b, 2*off+1, 64)}
	}
	return [2]uint64{buffer.LoadBits(b, off, bits)}
}

func storeWide(b []byte, off int64, bits int, v [2]uint64) {
	if bits == 128 {
		buffer.StoreBits(b, 2*off, 64, v[0])
		buffer.StoreBits(b, 2*off+1, 64, v[1])
		return
	}
	buffer.StoreBits(b, off, bits, v[0])
}

// tpuTilings are the layouts TPUs use, drawn often by the random generator.
var tpuTilings = map[layout.DType][][]layout.Tile{
	layout.F32:  {{{8, 128}}, {{1, 128}}, {{2, 128}}, {{4, 128}}},
	layout.BF16: {{{8, 128}, {2, 1}}, {{16, 128}, {2, 1}}, {{2, 128}, {2, 1}}, {{4, 128}, {2, 1}}, {{8, 128}, {2, 1, 1, 1}}, {{1024}, {128}, {2, 1}}},
	layout.S8:   {{{32, 128}, {4, 1}}, {{8, 128}, {4, 1}}},
	layout.U8:   {{{32, 128}, {4, 1}}, {{8, 128}, {4, 1}}},
	// fp8 KV caches and weights: TPU's 8-bit tilings.
	layout.F8E4M3FN: {{{32, 128}, {4, 1}}, {{8, 128}, {4, 1}}},
	layout.F8E5M2:   {{{32, 128}, {4, 1}}, {{8, 128}, {4, 1}}},
	layout.S4:       {{{64, 128}, {8, 1}}, {{8, 128}, {8, 1}}},
}

// randomPerm is a random minor_to_major of rank dims.
func randomPerm(r *rand.Rand, rank int) []int {
	m := layout.RowMajor(rank)
	r.Shuffle(rank, func(a, b int) { m[a], m[b] = m[b], m[a] })
	return m
}

// randomDims draws rank dims from sizes, each one that would take the element count
// past budget replaced by one from 1 to small.
func randomDims(r *rand.Rand, rank int, sizes []int64, budget, small int64) []int64 {
	dims := make([]int64, rank)
	elems := int64(1)
	for j := range dims {
		dims[j] = sizes[r.IntN(len(sizes))]
		if elems*dims[j] > budget {
			dims[j] = 1 + r.Int64N(small)
		}
		elems *= dims[j]
	}
	return dims
}

func randomLayout(r *rand.Rand, dt layout.DType, rank int) layout.Layout {
	l := layout.Layout{MinorToMajor: layout.RowMajor(rank)}
	if r.IntN(3) == 0 {
		l.MinorToMajor = randomPerm(r, rank)
	}
	switch x := r.IntN(10); {
	case x < 3: // untiled
	case x < 7 && len(tpuTilings[dt]) > 0:
		ts := tpuTilings[dt]
		l.Tiles = ts[r.IntN(len(ts))]
	case x < 8 && rank >= 2: // combined dims
		l.Tiles = []layout.Tile{{2, layout.Combined, 8}}
		if rank == 2 {
			l.Tiles = []layout.Tile{{layout.Combined, 4}}
		}
	case x < 9:
		sizes := []int64{1, 2, 3, 4, 8, 16}
		for n := 1 + r.IntN(2); n > 0; n-- {
			t := make(layout.Tile, 1+r.IntN(min(rank, 2)+1))
			for i := range t {
				t[i] = sizes[r.IntN(len(sizes))]
			}
			l.Tiles = append(l.Tiles, t)
		}
	default:
		l.Tiles = anyTiles(r, rank)
	}
	if r.IntN(8) == 0 {
		l.TailPadding = 1 + r.Int64N(300)
	}
	if dt.IsSubByte() && (len(l.Tiles) > 0 || r.IntN(2) == 0) {
		l.ElementBits = int64(dt.Bits())
	}
	l.ElementBits = widerElements(r, dt, l.ElementBits)
	otherAttrs(r, &l, rank)
	return l
}

type pairCase struct {
	dst, src layout.Shape
	opts     []Option
	stream   bool // force the non-temporal and read-ahead paths that only large arrays take
}

func randomPair(r *rand.Rand) pairCase {
	type dpair struct{ dst, src layout.DType }
	dpairs := []dpair{
		{layout.F32, layout.F32}, {layout.BF16, layout.BF16}, {layout.BF16, layout.F32}, {layout.F16, layout.F32},
		{layout.F32, layout.BF16}, {layout.F32, layout.F16}, {layout.S8, layout.S8}, {layout.S4, layout.S4},
		{layout.U8, layout.F32}, {layout.F64, layout.S32}, {layout.C128, layout.C128}, {layout.Pred, layout.Pred},
		{layout.S4, layout.S8}, {layout.U16, layout.U16}, {layout.F8E4M3FN, layout.BF16},
		// the f8 kernels and per-element runs (simd F32ToF8*Rows, f8Run)
		{layout.F8E4M3FN, layout.F32}, {layout.F8E5M2, layout.F32}, {layout.F32, layout.F8E4M3FN},
		{layout.F32, layout.F8E5M2}, {layout.F8E5M2, layout.F16}, {layout.BF16, layout.F8E5M2},
		{layout.F8E4M3FN, layout.F8E4M3FN}, {layout.U8, layout.U8}, {layout.F16, layout.F8E4M3FN},
		// buffer.Converter's run paths: a table, halves, float64 and integer passes
		{layout.F32, layout.S8}, {layout.BF16, layout.F16}, {layout.F16, layout.BF16}, {layout.BF16, layout.F64},
		{layout.S32, layout.S64}, {layout.U32, layout.F32}, {layout.Pred, layout.F32},
	}
	dp := dpairs[r.IntN(len(dpairs))]
	if dt, ok := anySameType(r); ok {
		dp = dpair{dt, dt}
	}
	rank := r.IntN(5)
	if r.IntN(3) > 0 {
		rank = 2
	}
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = 1 + r.Int64N(300)
		if rank > 2 {
			dims[i] = 1 + r.Int64N(24)
		}
	}
	if rank > 0 && r.IntN(40) == 0 {
		dims[r.IntN(rank)] = 0 // empty arrays: only padding, if any
	}
	src := layout.Shape{DType: dp.src, Dims: dims, Layout: randomLayout(r, dp.src, rank)}
	dst := layout.Shape{DType: dp.dst, Dims: dims, Layout: randomLayout(r, dp.dst, rank)}
	var opts []Option
	if r.IntN(4) == 0 {
		opts = append(opts, WithWorkers(1+r.IntN(4)))
	}
	switch r.IntN(6) {
	case 0:
		opts = append(opts, WithPadLeave())
	case 1:
		if buffer.CanConvert(dp.dst, layout.F64) { // c64, c128: padding cannot hold a number
			opts = append(opts, WithPadValue(-1.5))
		}
	}
	if r.IntN(3) == 0 {
		opts = append(opts, WithBlockBytes(256<<r.IntN(6)))
	}
	fitPair(dst, src)
	return pairCase{dst, src, opts, r.IntN(8) == 0}
}

// randomFill writes random bits over every byte, padding included.
func randomFill(r *rand.Rand, b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, r.Uint64())
		b = b[8:]
	}
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

func checkPair(t *testing.T, r *rand.Rand, c pairCase, kernels string) string {
	t.Helper()
	return checkPairInto(t, r, c, kernels, buffer.MustNew(c.dst), fmt.Sprintf("opts %d", len(c.opts)))
}

// planFor plans c with the named kernel set, streaming and reading ahead as large
// arrays do when c.stream asks for it.
func planFor(t *testing.T, c pairCase, kernels string) *Plan {
	t.Helper()
	p, err := NewPlan(c.dst, c.src, append([]Option{WithKernel(kernels)}, c.opts...)...)
	if err != nil {
		t.Fatalf("NewPlan(%s ← %s): %v", c.dst, c.src, err)
	}
	if c.stream {
		p.stream, p.readAhead = kindOf(p) != "elementwise", true
		switch p.exec.(type) {
		case *nibbleTiles, *nibbleWords: // they stream with any kernel
			p.stream = true
		}
		if p.kern != nil {
			p.settle(p.kern)
		}
	}
	return p
}

// checkPairInto runs c's plan into got, a destination of c's shape, and compares the
// result with the reference; note says what the failure message should add.
func checkPairInto(t *testing.T, r *rand.Rand, c pairCase, kernels string, got *buffer.Buffer, note string) string {
	t.Helper()
	p := planFor(t, c, kernels)
	src := buffer.MustNew(c.src)
	randomFill(r, src.Data)
	want := buffer.MustNew(c.dst)
	randomFill(r, got.Data)
	copy(want.Data, got.Data)
	if err := p.Copy(got, src); err != nil {
		t.Fatalf("%s: Copy: %v", p, err)
	}
	reference(want, src, p.fill, p.opts.pad == padLeave)
	if !bytes.Equal(got.Data, want.Data) {
		i := 0
		for got.Data[i] == want.Data[i] {
			i++
		}
		t.Fatalf("%s (%s, %s): byte %d of %d differs: got %#x, want %#x", p, kernels, note, i, len(got.Data), got.Data[i], want.Data[i])
	}
	return p.Kernel()
}

// checkPairAt is checkPair with the destination off bytes past a 64-byte boundary.
func checkPairAt(t *testing.T, r *rand.Rand, c pairCase, kernels string, off int) {
	t.Helper()
	checkPairInto(t, r, c, kernels, offsetBuffer(t, c.dst, off), fmt.Sprintf("dst +%d, stream %v", off, c.stream))
}

// offsetBytes returns n bytes starting off bytes past a 64-byte boundary.
func offsetBytes(n, off int) []byte {
	b := make([]byte, n+off+64)
	a := int(-uintptr(unsafe.Pointer(&b[0])) & 63)
	return b[a+off : a+off+n : a+off+n]
}

// offsetBuffer is a buffer of shape s whose data starts off bytes past a 64-byte boundary.
func offsetBuffer(tb testing.TB, s layout.Shape, off int) *buffer.Buffer {
	n := len(buffer.MustNew(s).Data)
	d, err := buffer.Wrap(s, offsetBytes(n, off))
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// suitePairs is the benchmark suite's pairs at each of the sizes (rows, cols), then n
// random pairs from r.
func suitePairs(r *rand.Rand, sizes [][2]int64, n int) []pairCase {
	var cases []pairCase
	for _, c := range benchCases {
		for _, d := range sizes {
			dst, src := c.shapes(d[0], d[1])
			cases = append(cases, pairCase{dst: dst, src: src})
		}
	}
	for range n {
		cases = append(cases, randomPair(r))
	}
	return cases
}

// sized is a sweep's count: full in the long run (testenv.Long, which CI's long run
// sets), race under -race, short otherwise (the default and the -short run). The race
// detector makes the oracle checks 10–20× slower, and the run is there for the
// workers' sharing, which small sweeps reach as well; the short counts still reach
// every kernel (TestRandomPairs checks it) and the named cases run whole.
func sized(full, short, race int) int {
	switch {
	case raceBuild:
		return race
	case testenv.Long():
		return full
	}
	return short
}

// implementations are the kernel sets the checks run: every one available, or under
// -race the preferred one alone (the race run is there for the workers' sharing, which
// the kernel set does not change, and the simd wrappers report the memory assembly
// touches).
func implementations() []*simd.Kernels {
	all := simd.Available()
	if raceBuild {
		return all[len(all)-1:]
	}
	return all
}

// quick says the sweeps are sampled (all but the long run, and -race); the long run
// covers them whole.
func quick() bool { return !testenv.Long() || raceBuild }

func TestRandomPairs(t *testing.T) {
	n := sized(2000, 400, 60)
	r := rand.New(rand.NewPCG(7, 11))
	kinds := map[string]int{}
	for i := 0; i < n; i++ {
		c := randomPair(r)
		for _, k := range implementations() {
			kinds[checkPair(t, r, c, k.Name)]++
		}
		if i%20 == 0 {
			checkPair(t, r, c, "reference")
		}
	}
	t.Logf("%d pairs × %d implementations; inner kernels used: %v", n, len(implementations()), kinds)
	for _, k := range []string{"copy", "interleave", "deinterleave", "transpose", "elementwise", "reference"} {
		if kinds[k] == 0 && !raceBuild { // the -race run is too small to be sure; TestNamedCases pins each kernel
			t.Errorf("no random pair exercised the %s kernel", k)
		}
	}
}

// The cases of the speed table, at small odd and even sizes.
func TestNamedCases(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range benchCases {
		for _, d := range [][2]int64{{8, 128}, {24, 384}, {13, 300}, {1, 1}, {130, 129}} {
			dst, src := c.shapes(d[0], d[1])
			for _, k := range implementations() {
				got := checkPair(t, r, pairCase{dst: dst, src: src}, k.Name)
				if d == [2]int64{24, 384} && got != c.kernel {
					t.Errorf("%s: kernel %s, want %s", c.name, got, c.kernel)
				}
				checkPair(t, r, pairCase{dst: dst, src: src, stream: true}, k.Name)
			}
		}
	}
}

// TestMisalignedDst checks relayouts into destinations that start 16, 4 or 2 bytes past
// a 64-byte boundary (a NumPy array's data starts 16 bytes past one), streaming and
// not, against the reference: the cases at odd and even sizes, and random pairs.
func TestMisalignedDst(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := suitePairs(r, [][2]int64{{24, 384}, {13, 300}, {130, 129}, {64, 1000}}, sized(300, 40, 10))
	offs := []int{16, 4, 2}
	for i, c := range cases {
		for j, off := range offs {
			if quick() && j != i%len(offs) { // one offset a case, in turn
				continue
			}
			for _, k := range implementations() {
				for _, stream := range []bool{false, true} {
					c.stream = stream
					checkPairAt(t, r, c, k.Name, off)
				}
			}
		}
	}
}

// namedPair is a layout pair as format strings over its two dims, and the kernel it must
// use at 24×384 ("" for any).
type namedPair struct{ src, dst, kernel string }

// checkNamed checks each pair at odd, even and 1×1 sizes, for every SIMD implementation,
// plainly and as each variant says (options, streaming), against the reference. No pair
// may take the per-element path at any size.
func checkNamed(t *testing.T, seed uint64, pairs []namedPair, variants ...pairCase) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, c := range pairs {
		for _, d := range [][2]int64{{24, 384}, {8, 128}, {13, 300}, {130, 129}, {1, 1}, {257, 3}, {7, 2}} {
			dst := layout.MustParse(fmt.Sprintf(c.dst, d[0], d[1]))
			src := layout.MustParse(fmt.Sprintf(c.src, d[0], d[1]))
			for _, k := range implementations() {
				got := checkPair(t, r, pairCase{dst: dst, src: src}, k.Name)
				if got == "reference" || d == [2]int64{24, 384} && c.kernel != "" && got != c.kernel {
					t.Errorf("%s ← %s: kernel %s, want %s", dst, src, got, c.kernel)
				}
				for _, v := range variants {
					v.dst, v.src = dst, src
					checkPair(t, r, v, k.Name)
				}
			}
		}
	}
}

// checkPairs checks each layout pair, as texts with the destination first, against the
// reference for every SIMD implementation, as each variant says (options, streaming).
func checkPairs(t *testing.T, r *rand.Rand, pairs [][2]string, variants ...pairCase) {
	t.Helper()
	for _, c := range pairs {
		dst, src := layout.MustParse(c[0]), layout.MustParse(c[1])
		for _, k := range implementations() {
			for _, v := range variants {
				v.dst, v.src = dst, src
				checkPair(t, r, v, k.Name)
			}
		}
	}
}

// TestF8 covers the conversions to and from f8e4m3fn and f8e5m2: f32 rows converted
// and packed in (4,1) quads in one kernel, the other packings and transposes through
// the f8 run kernels, to and from bf16 and f16 in one pass.
func TestF8(t *testing.T) {
	checkNamed(t, 31, []namedPair{
		{"f32[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "interleave"},
		{"f32[%d,%d]{1,0}", "f8e5m2[%d,%d]{1,0:T(32,128)(4,1)}", "interleave"},
		{"f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "f32[%d,%d]{1,0}", "deinterleave"},
		{"f8e5m2[%d,%d]{1,0:T(32,128)(4,1)}", "f32[%d,%d]{1,0}", "deinterleave"},
		{"f32[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{0,1:T(8,128)(4,1)}", "transpose"},
		{"bf16[%d,%d]{1,0}", "f8e5m2[%d,%d]{1,0}", "copy"},
		{"f16[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "interleave"},
		{"f8e4m3fn[%d,%d]{1,0:T(32,128)(4,1)}", "bf16[%d,%d]{1,0}", "deinterleave"},
		{"bf16[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "interleave"},
		{"f8e5m2[%d,%d]{1,0}", "f16[%d,%d]{1,0}", "copy"},
		{"f16[%d,%d]{1,0}", "f8e5m2[%d,%d]{0,1:T(8,128)(4,1)}", "transpose"},
		{"f8e5m2[%d,%d]{1,0:T(8,128)(4,1)}", "bf16[%d,%d]{1,0}", "deinterleave"},
		{"f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", "f16[%d,%d]{1,0}", "deinterleave"},
		{"f8e4m3fn[%d,%d]{1,0}", "f16[%d,%d]{1,0}", "copy"},
		{"f8e4m3fn[%d,%d]{1,0}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", "transpose"},
	}, pairCase{stream: true}, pairCase{opts: []Option{WithPadLeave(), WithBlockBytes(256)}},
		pairCase{opts: []Option{WithPadValue(-1.5), WithWorkers(3)}})
}

// TestTransposedPacking covers layouts whose packed words hold elements that are adjacent
// on the other side too, which move as the units of a transpose: a row-major array to a
// transposed TPU tiling and back, and transposed tilings to each other; and transposes
// that convert.
func TestTransposedPacking(t *testing.T) {
	checkNamed(t, 5, []namedPair{
		{"bf16[%d,%d]{1,0}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", "transpose"},
		{"bf16[%d,%d]{0,1:T(8,128)(2,1)}", "bf16[%d,%d]{1,0}", "transpose"},
		{"s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(32,128)(4,1)}", "transpose"},
		{"s8[%d,%d]{0,1:T(32,128)(4,1)}", "s8[%d,%d]{1,0}", "transpose"},
		{"bf16[%d,%d]{0,1:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", ""},
		{"u16[%d,%d]{1,0}", "u16[%d,%d]{0,1:T(4,128)(2,1)}", "transpose"},
		{"s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(8,128)(2,1)}", "transpose"}, // 16-bit units
		// Converting: the block is converted into scratch, then transposed.
		{"f32[%d,%d]{1,0}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", "transpose"},
		{"bf16[%d,%d]{0,1:T(8,128)(2,1)}", "f32[%d,%d]{1,0}", "transpose"}, // transposed, then converted
		{"s8[%d,%d]{0,1:T(32,128)(4,1)}", "f32[%d,%d]{1,0}", "transpose"},
		{"f32[%d,%d]{1,0}", "bf16[%d,%d]{0,1:T(8,128)}", "transpose"},
		{"f32[%d,%d]{1,0}", "bf16[%d,%d]{0,1}", "transpose"},
		{"bf16[%d,%d]{1,0}", "f32[%d,%d]{0,1}", "transpose"},
		{"f32[%d,%d]{1,0}", "f16[%d,%d]{0,1:T(8,128)}", "transpose"},
		{"f32[%d,%d]{1,0}", "u8[%d,%d]{0,1}", "transpose"},
	}, pairCase{stream: true}, pairCase{opts: []Option{WithPadLeave(), WithBlockBytes(256)}})
}

// TestConvertingPacking covers pair and quad packing between types without a fused
// kernel: the rows are converted in scratch and packed by the same-type kernel, or
// unpacked there and converted.
func TestConvertingPacking(t *testing.T) {
	checkNamed(t, 17, []namedPair{
		{"f16[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave"},
		{"s8[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave"},
		{"f64[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(16,128)(2,1)}", "interleave"},
		{"s32[%d,%d]{1,0:T(8,128)}", "u16[%d,%d]{1,0:T(8,128)(2,1)}", "interleave"},
		{"f32[%d,%d]{1,0}", "s8[%d,%d]{1,0:T(32,128)(4,1)}", "interleave"},
		{"f32[%d,%d]{1,0}", "pred[%d,%d]{1,0:T(32,128)(4,1)}", "interleave"},
		{"bf16[%d,%d]{1,0:T(8,128)(2,1)}", "f16[%d,%d]{1,0}", "deinterleave"},
		{"bf16[%d,%d]{1,0:T(8,128)(2,1)}", "f64[%d,%d]{1,0}", "deinterleave"},
		{"s8[%d,%d]{1,0:T(32,128)(4,1)}", "f32[%d,%d]{1,0}", "deinterleave"},
	}, pairCase{stream: true}, pairCase{opts: []Option{WithPadLeave(), WithBlockBytes(256)}},
		pairCase{opts: []Option{WithPadValue(2), WithWorkers(3)}})
}

// TestPackPieces checks that a converting packing's pieces cover every element of every
// repeat once and fit in scratch.
func TestPackPieces(t *testing.T) {
	for _, c := range []struct{ pk, n, reps, w, scratch int }{
		{2, 128, 8, 2, 1 << 10}, {2, 128, 8, 2, 256 << 10}, {4, 1000, 3, 4, 1 << 10},
		{2, 5, 1, 8, 80}, {4, 3, 7, 1, 12}, {2, 300, 1, 2, 1000},
	} {
		k := &packingKernel{p: int64(c.pk)}
		seen := make([]int, c.n*c.reps)
		k.packPieces(make([]byte, c.scratch), c.n, c.reps, c.w, func(j, e, en, g, seg int) {
			if seg*c.pk > c.scratch || g*en*c.w > seg || en < 1 || g < 1 || g > 1 && en != c.n {
				t.Errorf("%+v: piece j=%d e=%d en=%d g=%d seg=%d does not fit", c, j, e, en, g, seg)
			}
			for r := j; r < j+g; r++ {
				for i := e; i < e+en; i++ {
					seen[r*c.n+i]++
				}
			}
		})
		for i, v := range seen {
			if v != 1 {
				t.Fatalf("%+v: element %d of repeat %d visited %d times", c, i%c.n, i/c.n, v)
			}
		}
	}
}

// TestNonNestingTiles covers dims whose tiles do not nest on the two sides (or within
// one side's chain), which the plan walks with table loops: padding values, workers,
// streaming and pad-leave included.
func TestNonNestingTiles(t *testing.T) {
	checkNamed(t, 9, []namedPair{
		{"f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0:T(6,128)}", "copy"},
		{"f32[%d,%d]{1,0:T(6,128)}", "f32[%d,%d]{1,0:T(8,128)}", "copy"},
		{"bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(3,128)(2,1)}", ""},
		{"f32[%d,%d]{1,0}", "f32[%d,%d]{1,0:T(3,5)}", ""},
		{"s8[%d,%d]{1,0:T(5,7)}", "s8[%d,%d]{0,1:T(3,4)}", ""},
		{"f32[%d,%d]{0,1:T(6,128)}", "f32[%d,%d]{1,0:T(8,128)}", ""},
		{"f32[%d,%d]{1,0:T(8,128)}", "bf16[%d,%d]{1,0:T(6,128)}", "copy"},
	}, pairCase{stream: true, opts: []Option{WithWorkers(3)}}, pairCase{opts: []Option{WithPadLeave()}},
		pairCase{opts: []Option{WithPadValue(2.5), WithWorkers(2)}})
	r := rand.New(rand.NewPCG(9, 10))
	// A 3-D case with one such dim between two regular ones.
	dst := layout.MustParse("bf16[5,20,130]{2,1,0:T(6,128)}")
	src := layout.MustParse("bf16[5,20,130]{2,1,0:T(8,128)}")
	if got := checkPair(t, r, pairCase{dst: dst, src: src}, "generic"); got == "reference" {
		t.Errorf("%s ← %s: per-element path", dst, src)
	}
}

// TestCombinedDims covers combined dims `*`: those whose merged tile splits over the
// merged dims plan as the equivalent plain tile (and must not take the per-element path),
// the others take the per-element path; both must match the reference.
func TestCombinedDims(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		src, dst string
		fast     bool
	}{
		{"bf16[4,64,512]{2,1,0}", "bf16[4,64,512]{2,1,0:T(2,*,128)}", true}, // T(2,1,128)
		{"bf16[5,64,64]{2,1,0}", "bf16[5,64,64]{2,1,0:T(2,*,128)}", true},   // T(2,2,64)
		{"f32[5,7,3]{2,1,0}", "f32[5,7,3]{2,1,0:T(2,*,8)}", false},          // 3 and 8 do not divide
		{"f32[3,5,4,8]{3,2,1,0}", "f32[3,5,4,8]{3,2,1,0:T(*,*,64)}", true},  // T(2,4,8) over (5,4,8)
		{"f32[8,4,2,4]{0,1,2,3:T(*,*,64)}", "f32[8,4,2,4]{3,2,1,0}", true},  // physical (4,2,4,8)
		{"s8[30,4]{1,0}", "s8[30,4]{1,0:T(*,8)}", true},                     // T(2,4)
		{"u16[9,16]{0,1:T(*,4)}", "u16[9,16]{1,0:T(2,*,4)}", false},         // rank 2: a 3-entry tile
		{"bf16[6,40,256]{2,1,0:T(2,*,128)}", "bf16[6,40,256]{1,2,0:T(8,128)(2,1)}", true},
	} {
		dst, src := layout.MustParse(c.dst), layout.MustParse(c.src)
		for _, k := range implementations() {
			got := checkPair(t, r, pairCase{dst: dst, src: src}, k.Name)
			if c.fast && got == "reference" {
				t.Errorf("%s ← %s: per-element path", dst, src)
			}
			checkPair(t, r, pairCase{dst: dst, src: src, opts: []Option{WithPadValue(-3), WithWorkers(3)}}, k.Name)
		}
	}
}

// TestTwoPass covers plans that go through a row-major array because their direct
// kernel is poor and both passes are not: pair packing along different dims on the two
// sides, with padding options, workers and odd sizes.
func TestTwoPass(t *testing.T) {
	checkNamed(t, 13, []namedPair{
		{"bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", "deinterleave+transpose"},
		{"bf16[%d,%d]{0,1:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "transpose+interleave"},
		{"s8[%d,%d]{1,0:T(32,128)(4,1)}", "s8[%d,%d]{0,1:T(32,128)(4,1)}", "deinterleave+transpose"},
		{"f32[%d,%d]{1,0:T(8,128)}", "bf16[%d,%d]{0,1:T(8,128)(2,1)}", ""},
	}, pairCase{opts: []Option{WithPadLeave(), WithWorkers(3)}}, pairCase{opts: []Option{WithPadValue(7)}})
	dst, src := layout.MustParse("bf16[250,300]{0,1:T(8,128)(2,1)}"), layout.MustParse("bf16[250,300]{1,0:T(8,128)(2,1)}")
	p, err := NewPlan(dst, src, WithWorkers(1)) // a pool's goroutines start on first use
	if err != nil {
		t.Fatal(err)
	}
	d, s := buffer.MustNew(dst), buffer.MustNew(src)
	if tp, ok := p.exec.(*twoPass); !ok || tp.bufs.len() != 1 {
		t.Errorf("%s: NewPlan did not make the row-major array", p)
	}
	if n := testing.AllocsPerRun(10, func() { _ = p.Copy(d, s) }); n != 0 {
		t.Errorf("%s: Copy allocates %v times", p, n)
	}
}

func TestCopyErrors(t *testing.T) {
	a := layout.MustParse("f32[4,8]{1,0}")
	b := layout.MustParse("f32[4,8]{0,1:T(2,2)}")
	p, err := NewPlan(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPlan(layout.MustParse("f32[4,9]"), a); err == nil {
		t.Error("dims mismatch accepted")
	}
	if _, err := NewPlan(layout.MustParse("f32[4]"), a); err == nil {
		t.Error("rank mismatch accepted")
	}
	if _, err := NewPlan(b, a, WithWorkers(0)); err == nil {
		t.Error("0 workers accepted")
	}
	if _, err := NewPlan(b, a, WithKernel("sse9")); err == nil {
		t.Error("unknown kernel accepted")
	}
	if _, err := NewPlan(b, a, WithBlockBytes(1000)); err == nil {
		t.Error("block bytes 1000 accepted")
	}
	if err := p.CopyBytes(make([]byte, 127), make([]byte, 128)); err == nil {
		t.Error("short destination accepted")
	}
	buf := make([]byte, 256)
	if err := p.CopyBytes(buf[:128], buf[64:192]); err == nil {
		t.Error("overlapping buffers accepted")
	}
	if err := p.Copy(buffer.MustNew(a), buffer.MustNew(a)); err == nil {
		t.Error("buffer of the wrong layout accepted")
	}
}

// Types with no conversion between them are still an ErrShape, but the message says
// that the types differ, not the shapes.
func TestNewPlanTypesWithoutConversion(t *testing.T) {
	dst, _ := layout.Parse("c64[3]")
	src, _ := layout.Parse("c128[3]")
	_, err := NewPlan(dst, src)
	if !errors.Is(err, ErrShape) {
		t.Fatalf("NewPlan(c64, c128) = %v, want an ErrShape", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "element types differ") || !strings.Contains(msg, "c128 to c64") || strings.Contains(msg, "shapes do not match") {
		t.Errorf("NewPlan(c64, c128): %q does not say that the types differ", msg)
	}
}

func TestCopyDoesNotAllocate(t *testing.T) {
	// Converting runs outside the fused kernels, and scalars.
	// And converting transposes and packings, whose scratch blocks come from the plan's
	// free list.
	for _, c := range [][2]string{{"u8[250,300]", "f32[250,300]"}, {"f64[]", "s32[]"}, {"s4[9,300]{1,0:T(8,128)E(4)}", "s8[9,300]"},
		{"bf16[250,300]{0,1:T(8,128)(2,1)}", "f32[250,300]"}, {"f32[600,700]{0,1}", "bf16[600,700]"},
		{"f32[250,300]", "bf16[250,300]{0,1:T(8,128)(2,1)}"},
		{"bf16[250,300]{1,0:T(8,128)(2,1)}", "f16[250,300]"}, {"f64[250,300]", "bf16[250,300]{1,0:T(8,128)(2,1)}"},
		{"s4[250,300]{1,0:T(64,128)(8,1)E(4)}", "s4[250,300]{1,0:E(4)}"},
		{"s4[700,1030]{1,0:T(64,128)(8,1)E(4)}", "s4[700,1030]{1,0:E(4)}"}, // passes split over workers
		{"f32[513,257]{0,1:T(8,128)}", "f32[513,257]"},                     // Transpose32Tiles
		{"f32[513,256]", "f32[513,256]{0,1:T(8,128)}"}} {                   // Transpose32FromTiles
		for _, workers := range []int{1, 2} {
			dst, src := layout.MustParse(c[0]), layout.MustParse(c[1])
			p, copyAll := planCopy(t, dst, src, workers)
			// AllocsPerRun's warm-up call would hide buffers made by the first Copy.
			if s := baseOf(p).scratch; s != nil && s.len() != workers {
				t.Errorf("%s ← %s: NewPlan made %d scratch blocks for %d workers", c[0], c[1], s.len(), workers)
			}
			if n := testing.AllocsPerRun(20, copyAll); n != 0 {
				t.Errorf("%s ← %s, %d workers: Copy allocates %v times", c[0], c[1], workers, n)
			}
		}
	}
	for _, c := range benchCases {
		for _, workers := range []int{1, 2} {
			dst, src := c.shapes(250, 300) // ragged: the edge and padding paths too
			p, copyAll := planCopy(t, dst, src, workers)
			if n := testing.AllocsPerRun(20, copyAll); n != 0 {
				t.Errorf("%s, %d workers: Copy allocates %v times", c.name, workers, n)
			}
			if n := testing.AllocsPerRun(5, func() { runtime.GC(); copyAll() }); n != 0 {
				t.Errorf("%s, %d workers: Copy after a GC allocates %v times", c.name, workers, n)
			}
			p.stream, p.readAhead = true, true // the non-temporal and read-ahead paths of large arrays
			if p.kern != nil {
				p.settle(p.kern)
			}
			if n := testing.AllocsPerRun(20, copyAll); n != 0 {
				t.Errorf("%s, %d workers, streaming: Copy allocates %v times", c.name, workers, n)
			}
		}
	}
}

func TestConcurrentCopy(t *testing.T) {
	dst, src := benchCases[0].shapes(200, 300)
	t.Run("tiling", func(t *testing.T) { concurrentCopy(t, dst, src) })
	// Plans with per-copy buffers: converting transposes' and packings' scratch, a two-pass array.
	t.Run("converting transpose", func(t *testing.T) {
		concurrentCopy(t, layout.MustParse("bf16[200,300]{0,1:T(8,128)(2,1)}"), layout.MustParse("f32[200,300]"))
	})
	t.Run("converting packing", func(t *testing.T) {
		concurrentCopy(t, layout.MustParse("bf16[200,300]{1,0:T(8,128)(2,1)}"), layout.MustParse("s8[200,300]"))
	})
	t.Run("sub-byte", func(t *testing.T) {
		concurrentCopy(t, layout.MustParse("s4[200,300]{1,0:T(64,128)(8,1)E(4)}"), layout.MustParse("s4[200,300]{1,0:E(4)}"))
	})
	t.Run("two passes", func(t *testing.T) {
		concurrentCopy(t, layout.MustParse("bf16[200,300]{0,1:T(8,128)(2,1)}"), layout.MustParse("bf16[200,300]{1,0:T(8,128)(2,1)}"))
	})
}

func concurrentCopy(t *testing.T, dst, src layout.Shape) {
	p, err := NewPlan(dst, src, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	s := buffer.MustNew(src)
	randomFill(rand.New(rand.NewPCG(1, 1)), s.Data)
	want := buffer.MustNew(dst)
	reference(want, s, 0, false)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			d := buffer.MustNew(dst)
			for i := 0; i < 5; i++ {
				if err := p.Copy(d, s); err != nil || !bytes.Equal(d.Data, want.Data) {
					done <- fmt.Errorf("concurrent copy differs (%v)", err)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestPadValue(t *testing.T) {
	src := layout.MustParse("f32[3,5]")
	dst := layout.MustParse("bf16[3,5]{1,0:T(8,128)(2,1)}")
	p, err := NewPlan(dst, src, WithPadValue(math.Inf(-1)))
	if err != nil {
		t.Fatal(err)
	}
	s, d := buffer.MustNew(src), buffer.MustNew(dst)
	if err := p.Copy(d, s); err != nil {
		t.Fatal(err)
	}
	if v := buffer.LoadBits(d.Data, 1023, 16); v != 0xff80 {
		t.Errorf("padding is %#x, want bf16 -Inf 0xff80", v)
	}
}

// TestPartialPackedRows checks (2,1) and (4,1) tiles whose last packed rows are cut by the
// end of the array (13 rows): packed rows past the data read a fill row when one packs to
// the padding (same type, or a zero fill) and go element by element otherwise.
func TestPartialPackedRows(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range [][2]string{
		{"s8[13,300]{1,0:T(32,128)(4,1)}", "s8[13,300]"},
		{"bf16[13,300]{1,0:T(8,128)(2,1)}", "bf16[13,300]"},
		{"bf16[13,300]{1,0:T(8,128)(2,1)}", "f32[13,300]"},
		{"f16[13,200]{1,0:T(16,128)(2,1)}", "f32[13,200]"},
	} {
		dst, src := layout.MustParse(c[0]), layout.MustParse(c[1])
		for _, opts := range [][]Option{nil, {WithPadValue(-3)}, {WithPadValue(1.5)}, {WithPadLeave()}} {
			p, err := NewPlan(dst, src, opts...)
			if err != nil {
				t.Fatal(err)
			}
			wantRow := p.opts.pad != padLeave && (dst.DType == src.DType || p.fill == 0)
			if got := packingOf(p).fillRow != nil; got != wantRow {
				t.Errorf("%s ← %s, %d opts: fill row %v, want %v", dst, src, len(opts), got, wantRow)
			}
			for _, k := range implementations() {
				for _, stream := range []bool{false, true} {
					checkPair(t, r, pairCase{dst: dst, src: src, opts: opts, stream: stream}, k.Name)
				}
			}
		}
	}
}

// mustPlan is the plan from src to dst (shape texts), failing t when there is none.
func mustPlan(t testing.TB, dst, src string, opts ...Option) *Plan {
	t.Helper()
	p, err := NewPlan(layout.MustParse(dst), layout.MustParse(src), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// planCopy plans dst ← src on workers workers and returns the plan and a call that
// copies between buffers of the two shapes, for counting what a Copy allocates.
func planCopy(t testing.TB, dst, src layout.Shape, workers int) (*Plan, func()) {
	t.Helper()
	p, err := NewPlan(dst, src, WithWorkers(workers))
	if err != nil {
		t.Fatal(err)
	}
	d, s := buffer.MustNew(dst), buffer.MustNew(src)
	return p, func() { _ = p.Copy(d, s) }
}
