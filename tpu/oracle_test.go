package tpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// Cross-oracle tests: the TPU model against the layout package's nested-tiling index
// math and the relayout engine, which build the images here.

var oracleDTypes = []layout.DType{layout.F32, layout.S32, layout.BF16, layout.F16, layout.S16,
	layout.S8, layout.U8, layout.F8E4M3FN, layout.S4, layout.U4, layout.S2}

var edgeSizes = []int64{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 64, 100, 127, 128, 129, 200, 256, 257}

func randomDims(rng *rand.Rand) []int64 {
	for {
		if d := randomDims1(rng); layout.Elements(d) <= 1<<15 {
			return d
		}
	}
}

func randomDims1(rng *rand.Rand) []int64 {
	rank := 1 + rng.IntN(3)
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = edgeSizes[rng.IntN(len(edgeSizes))]
	}
	if rank == 1 && rng.IntN(2) == 0 {
		dims[0] = 1 + rng.Int64N(5000)
	}
	if rank == 3 {
		dims[0] = 1 + rng.Int64N(3)
	}
	return dims
}

// fill returns a row-major reference of shape dt[dims] with random bits.
func randomReference(t testing.TB, rng *rand.Rand, dt layout.DType, dims []int64) *buffer.Buffer {
	t.Helper()
	ref, err := buffer.New(layout.NewShape(dt, dims...))
	if err != nil {
		t.Fatal(err)
	}
	if ref.Len() == 0 {
		return ref
	}
	idx := make([]int64, len(dims))
	for {
		ref.SetBits(idx, rng.Uint64())
		if !layout.NextIndex(idx, dims) {
			return ref
		}
	}
}

// layoutImage builds the image of ref in shape s element by element with the layout
// package's index math (the other oracle). Padding is zero.
func layoutImage(t testing.TB, s layout.Shape, ref *buffer.Buffer) *buffer.Buffer {
	t.Helper()
	img, err := buffer.New(s)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := converter(s.DType, ref.Shape.DType)
	if err != nil {
		t.Fatal(err)
	}
	forEachIndex(s.Dims, func(idx []int64) { img.SetBits(idx, conv(ref.Bits(idx))) })
	return img
}

func forEachIndex(dims []int64, fn func([]int64)) {
	if layout.Elements(dims) == 0 {
		return
	}
	idx := make([]int64, len(dims))
	for {
		fn(idx)
		if !layout.NextIndex(idx, dims) {
			return
		}
	}
}

// imageMakers build a device image of a reference in a given shape, each by another
// engine; every image must pass Check. The first one is also corrupted on purpose.
var imageMakers = []struct {
	name string
	make func(testing.TB, layout.Shape, *buffer.Buffer) *buffer.Buffer
}{
	{"layout.Indexer", layoutImage},
	{"relayout/generic", relayoutImage("generic")},
	{"relayout/default", relayoutImage("")},
}

// relayoutImage makes the image with the relayout engine (kernel "" is the default SIMD
// implementation): the tpu model must accept what relayout writes.
func relayoutImage(kernel string) func(testing.TB, layout.Shape, *buffer.Buffer) *buffer.Buffer {
	return func(t testing.TB, s layout.Shape, ref *buffer.Buffer) *buffer.Buffer {
		t.Helper()
		var opts []relayout.Option
		if kernel != "" {
			opts = append(opts, relayout.WithKernel(kernel))
		}
		p, err := relayout.NewPlan(s, ref.Shape, opts...)
		if err != nil {
			t.Fatal(err)
		}
		img, err := buffer.New(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Copy(img, ref); err != nil {
			t.Fatal(err)
		}
		return img
	}
}

func TestOracleDefaultLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapesPer := 4
	if testing.Short() {
		shapesPer = 2
	}
	for _, g := range Generations() {
		chip, _ := ChipOf(g)
		opts := CheckOptions{Target: chip.Target, Generation: g}
		for _, dt := range oracleDTypes {
			for range shapesPer {
				dims := randomDims(rng)
				s, err := DefaultShape(g, dt, dims)
				if err != nil {
					t.Fatalf("%s %s%v: %v", g, dt, dims, err)
				}
				t.Run(fmt.Sprintf("gen=%s/shape=%s", g, s), func(t *testing.T) {
					oracleCase(t, rng, chip, s, opts)
				})
			}
		}
	}
}

func oracleCase(t *testing.T, rng *rand.Rand, chip Chip, s layout.Shape, opts CheckOptions) {
	m, err := NewMemTiling(chip.Target, s)
	if err != nil {
		t.Fatalf("default layout not loadable: %v", err)
	}
	ix, err := layout.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes() != ix.FootprintBytes() {
		t.Fatalf("model bytes %d, layout footprint %d", m.Bytes(), ix.FootprintBytes())
	}
	forEachIndex(s.Dims, func(idx []int64) {
		if got, want := m.Locate(idx).BitOffset, ix.BitOffset(idx); got != want {
			t.Fatalf("%v: model bit %d, layout bit %d", idx, got, want)
		}
	})
	ref := randomReference(t, rng, s.DType, s.Dims)
	for _, mk := range imageMakers[1:] {
		img := mk.make(t, s, ref)
		if rep, err := Check(img, ref, CheckOptions{Target: chip.Target, CheckPadding: true}); err != nil || !rep.OK() {
			t.Errorf("image made by %s: %v %v", mk.name, rep, err)
		}
	}
	img := imageMakers[0].make(t, s, ref)
	n := layout.Elements(s.Dims)

	for _, native := range []bool{false, true} {
		o := opts
		o.Native, o.CheckPadding = native, true
		rep, err := Check(img, ref, o)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Elements != n {
			t.Fatalf("native=%v: %s", native, rep)
		}
		vl := m.LoadLayout()
		if native && len(s.Dims) > 1 {
			vl = NativeLayout(chip.Target, m.bits)
		}
		if vc, _ := vl.VregCount(s.Dims); vc != rep.Vregs {
			t.Errorf("native=%v: report has %d vregs, VregCount %d", native, rep.Vregs, vc)
		}
	}
	if n == 0 {
		return
	}

	// One corrupted element: found at the right place, diagnosed as the declared layout.
	idx := make([]int64, len(s.Dims))
	for i, d := range s.Dims {
		idx[i] = rng.Int64N(d)
	}
	old := img.Bits(idx)
	if math.IsNaN(img.At(idx)) {
		old = 0 // flipping a bit of a NaN may leave a NaN: other NaN bits, not a wrong value
		img.SetBits(idx, old)
		ref.SetBits(idx, old)
	}
	img.SetBits(idx, old^1)
	rep, err := Check(img, ref, CheckOptions{Target: chip.Target, Diagnose: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatches != 1 || len(rep.First) != 1 {
		t.Fatalf("corrupt %v: %s", idx, rep)
	}
	mm := rep.First[0]
	p := m.LoadLayout().Place(idx)
	if !slices.Equal(mm.Index, idx) || mm.ByteOffset != ix.ByteOffset(idx) || !slices.Equal(mm.Vreg, p.Vreg) ||
		mm.Sublane != p.Sublane || mm.Lane != p.Lane || mm.Slot != p.Slot || mm.Actual != old^1 || mm.Expected != old {
		t.Errorf("corrupt %v (byte %d, %v): reported %s", idx, ix.ByteOffset(idx), p, mm)
	}
	if d := rep.Diagnosis; n >= 64 && (d == nil || d.Best.Arrangement != ArrDeclared || d.Best.Matched != n-1) {
		t.Errorf("corrupt %v: diagnosis %v", idx, d)
	}
	img.SetBits(idx, old)

	// A non-zero padding slot: invisible unless padding is checked.
	for off := int64(0); off < ix.FootprintElements(); off++ {
		if ix.Index(off, make([]int64, len(s.Dims))) {
			continue
		}
		img.SetBitsAt(off, 1)
		rep, err := Check(img, ref, CheckOptions{Target: chip.Target})
		if err != nil || !rep.OK() {
			t.Fatalf("padding ignored: %v %v", rep, err)
		}
		rep, _ = Check(img, ref, CheckOptions{Target: chip.Target, CheckPadding: true})
		if rep.PaddingMismatches != 1 || rep.Mismatches != 0 || !rep.First[0].Padding ||
			rep.First[0].ByteOffset != off*int64(ix.ElementBits())/8 {
			t.Errorf("padding at element offset %d: %s", off, rep)
		}
		img.SetBitsAt(off, 0)
		break
	}
}

// The diagnosis candidates that have an XLA layout place elements exactly as the layout
// package does for that layout.
func TestCandidatesMatchLayoutPackage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []layout.DType{layout.F32, layout.BF16, layout.S8, layout.S4} {
		for range 8 {
			dims := randomDims(rng)
			s, err := DefaultShape(V5e, dt, dims)
			if err != nil {
				t.Fatal(err)
			}
			six, err := layout.Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			cands, err := candidates(s, six, layout.F32, CheckOptions{}.orDefault())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cands {
				if c.Layout == "" {
					continue
				}
				ix, err := layout.Compile(layout.MustParse(c.Layout))
				if err != nil {
					t.Fatalf("%s: %v", c.Layout, err)
				}
				forEachIndex(dims, func(idx []int64) {
					if got, want := c.pos(idx), ix.BitOffset(idx); got != want {
						t.Fatalf("%s (%s) %v: model bit %d, layout bit %d", c.Arrangement, c.Layout, idx, got, want)
					}
				})
			}
		}
	}
}

// wrongImage returns the declared shape wrapped around bytes made in another
// arrangement: those bytes truncated or zero-padded to the declared footprint.
func wrongImage(t *testing.T, declared layout.Shape, data []byte) *buffer.Buffer {
	t.Helper()
	ix, err := layout.Compile(declared)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, ix.FootprintBytes())
	copy(out, data)
	img, err := buffer.Wrap(declared, out)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestDiagnoseWrongArrangements(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type wrong struct {
		kind string
		make func(s layout.Shape, ref *buffer.Buffer) (data []byte, lay string)
	}
	viaLayout := func(str string, ref *buffer.Buffer) ([]byte, string) {
		return layoutImage(t, layout.MustParse(str), ref).Data, str
	}
	rowsCols := func(s layout.Shape) string { return strings.ReplaceAll(fmt.Sprint(s.Dims), " ", ",") }
	tilesOf := func(s layout.Shape) (int64, int64) { return s.Layout.Tiles[0][0], int64(32 / s.DType.Bits()) }
	e := func(s layout.Shape) string {
		if s.DType.IsSubByte() {
			return fmt.Sprintf("E(%d)", s.DType.Bits())
		}
		return ""
	}
	wrongs := []wrong{
		{ArrUntiled, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			str := fmt.Sprintf("%s%s{1,0%s}", s.DType, rowsCols(s), map[bool]string{true: ":" + e(s)}[e(s) != ""])
			return viaLayout(str, ref)
		}},
		{ArrNoPacking, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			t0, _ := tilesOf(s)
			return viaLayout(fmt.Sprintf("%s%s{1,0:T(%d,128)%s}", s.DType, rowsCols(s), t0, e(s)), ref)
		}},
		{ArrStackedRows, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			t0, p := tilesOf(s)
			return viaLayout(fmt.Sprintf("%s%s{1,0:T(%d,128)(%d,1,1,1)%s}", s.DType, rowsCols(s), t0, p, e(s)), ref)
		}},
		{ArrFirstTile, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			t0, p := tilesOf(s)
			other := t0 / 2
			if other < p {
				other = 2 * t0
			}
			return viaLayout(fmt.Sprintf("%s%s{1,0:T(%d,128)(%d,1)%s}", s.DType, rowsCols(s), other, p, e(s)), ref)
		}},
		{ArrTransposed, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			t0, p := tilesOf(s)
			return viaLayout(fmt.Sprintf("%s%s{0,1:T(%d,128)(%d,1)%s}", s.DType, rowsCols(s), t0, p, e(s)), ref)
		}},
		{ArrSwappedSlots, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			d := slices.Clone(layoutImage(t, s, ref).Data)
			for i := 0; i+4 <= len(d); i += 4 { // 16-bit only
				w := binary.LittleEndian.Uint32(d[i:])
				binary.LittleEndian.PutUint32(d[i:], w<<16|w>>16)
			}
			return d, ""
		}},
		{ArrShifted, func(s layout.Shape, ref *buffer.Buffer) ([]byte, string) {
			m, _ := NewMemTiling(DefaultTarget, s)
			d := layoutImage(t, s, ref).Data
			return append(make([]byte, m.TileBytes()), d...), ""
		}},
	}
	for _, dt := range []layout.DType{layout.BF16, layout.S8, layout.S4} {
		for _, w := range wrongs {
			if w.kind == ArrSwappedSlots && dt != layout.BF16 {
				continue
			}
			for range 6 {
				dims := []int64{edgeSizes[5+rng.IntN(len(edgeSizes)-5)], edgeSizes[5+rng.IntN(len(edgeSizes)-5)]}
				s, err := DefaultShape(V5e, dt, dims)
				if err != nil {
					t.Fatal(err)
				}
				ref := randomReference(t, rng, dt, dims)
				data, lay := w.make(s, ref)
				m, _ := NewMemTiling(DefaultTarget, s)
				if w.kind == ArrShifted && m.Tiles() < 2 || w.kind != ArrShifted && int64(len(data)) > m.Bytes() {
					continue // nothing left to recognise, or truncated to an ambiguous image
				}
				img := wrongImage(t, s, data)
				t.Run(fmt.Sprintf("kind=%s/shape=%s", w.kind, s), func(t *testing.T) {
					wantDiagnosis(t, img, ref, w.kind, lay)
				})
			}
		}
	}
}

func wantDiagnosis(t *testing.T, img, ref *buffer.Buffer, kind, lay string) {
	t.Helper()
	rep, err := Check(img, ref, CheckOptions{Diagnose: true})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Diagnosis
	if rep.OK() {
		// The wrong arrangement coincides with the declared one for this shape.
		return
	}
	var got *Candidate
	for i, c := range d.Candidates {
		if c.Arrangement == kind && (lay == "" || c.Layout == lay) {
			got = &d.Candidates[i]
			break
		}
	}
	if got == nil {
		t.Fatalf("no %s candidate (%s) in %v", kind, lay, d.Candidates)
	}
	if got.Matched != d.Best.Matched || got.Matched != got.Compared || got.Compared == 0 {
		t.Errorf("want %s (%s) best, got %s; candidate %+v", kind, lay, d, *got)
	}
	if d.Best.Arrangement == ArrDeclared && kind != ArrDeclared {
		t.Errorf("diagnosed as the declared layout: %s", d)
	}
}

func TestDiagnoseF32ForBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 6 {
		dims := []int64{edgeSizes[5+rng.IntN(len(edgeSizes)-5)], edgeSizes[5+rng.IntN(len(edgeSizes)-5)]}
		s, err := DefaultShape(V5e, layout.BF16, dims)
		if err != nil {
			t.Fatal(err)
		}
		ref := randomReference(t, rng, layout.F32, dims)
		fs, _ := DefaultShape(V5e, layout.F32, dims)
		img := wrongImage(t, s, layoutImage(t, fs, ref).Data)
		t.Run("shape="+s.String(), func(t *testing.T) { wantDiagnosis(t, img, ref, ArrF32, fs.String()) })
	}
}

// Load and Unpack give back every element once, in the load layout and the native one,
// and a load-layout vreg is a run of consecutive memory words (spec §5, rule behind
// #8, #10, #13, #19).
func TestLoadUnpack(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, str := range []string{
		"bf16[16,256]{1,0:T(8,128)(2,1)}", "bf16[16,256]{1,0:T(16,128)(2,1)}", "f32[12,320]{1,0:T(8,128)}",
		"s8[32,1024]{1,0:T(8,128)(4,1)}", "bf16[4,512]{1,0:T(4,128)(2,1)}", "s4[2,64,256]{2,1,0:T(64,128)(8,1)E(4)}",
		"bf16[3000]{0:T(1024)(128)(2,1)}", "f32[2,3,200]{2,1,0:T(4,128)}",
	} {
		s := layout.MustParse(str)
		m, err := NewMemTiling(DefaultTarget, s)
		if err != nil {
			t.Fatal(err)
		}
		ref := randomReference(t, rng, s.DType, s.Dims)
		img := layoutImage(t, s, ref)
		layouts := []VregLayout{m.LoadLayout()}
		if len(s.Dims) > 1 {
			layouts = append(layouts, NativeLayout(DefaultTarget, m.bits))
		}
		for _, v := range layouts {
			vregs, err := Load(img, v)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, r := range vregs {
				for _, e := range v.Unpack(s.Dims, r) {
					seen++
					if want := ref.Bits(e.Index); e.Bits != want {
						t.Fatalf("%s in %s: %v = %#x, want %#x", str, v, e.Index, e.Bits, want)
					}
				}
			}
			if int64(seen) != layout.Elements(s.Dims) {
				t.Errorf("%s in %s: %d elements unpacked, want %d", str, v, seen, layout.Elements(s.Dims))
			}
		}
		// Load layout: vreg word w of a vreg whose tiles all exist is memory word
		// first_tile·words_per_tile + w.
		if m.oneD {
			continue
		}
		vregs, _ := Load(img, m.LoadLayout())
		vs := m.LoadLayout().VregSlice()
		for _, r := range vregs {
			n := len(r.Index)
			if (r.Index[n-1]+1)*vs[1] > m.padCols {
				continue
			}
			first := m.locate(r.Index[:n-2], r.Index[n-2]*vs[0], r.Index[n-1]*vs[1], false).Word
			for w, word := range r.Words {
				if mw := binary.LittleEndian.Uint32(img.Data[4*(first+int64(w)):]); mw != word {
					t.Fatalf("%s vreg %v word %d = %#x, memory word %d = %#x", str, r.Index, w, word, first+int64(w), mw)
				}
			}
		}
	}
}
