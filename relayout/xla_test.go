package relayout

import (
	"fmt"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/xlagolden"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// The relayouts that convert, with every kernel set, against XLA's recorded conversions
// (testdata/xla): every recorded f32 input relaid out into each type, and every bit
// pattern of each narrow type relaid out to f32, in row-major, transposed and TPU-tiled
// layouts, so that the fused conversion kernels (runs, pairs and quads, transposes) are
// the ones at work. Elements are placed and read by the buffer's per-element accessors
// (the layout package's index oracle). The f64 and pred results of f32 subnormals keep
// the value (see buffer's TestConvertElementFromF32MatchesXLA and docs/conversions.md).

// xlaCols is the minor dimension of the arrays: the inputs fill [rows, xlaCols].
const xlaCols = 1024

// xlaLayouts are the layouts each type is relaid out in: its kernel types get the tiled
// forms that the fused kernels serve; every other type row-major alone (the elementwise
// path, whose rule buffer's tests check).
func xlaLayouts(ty string) []string {
	switch ty {
	case "bf16", "f16":
		return []string{"{1,0}", "{0,1}", "{1,0:T(8,128)(2,1)}", "{0,1:T(8,128)(2,1)}", "{1,0:T(16,128)}"}
	case "f8e4m3fn", "f8e5m2":
		return []string{"{1,0}", "{0,1}", "{1,0:T(8,128)(4,1)}", "{1,0:T(32,128)(4,1)}", "{0,1:T(8,128)(4,1)}"}
	}
	return []string{"{1,0}"}
}

// kernelType says whether ty has conversion kernels of its own (so every kernel set is run).
func kernelType(ty string) bool { return len(xlaLayouts(ty)) > 1 }

func xlaShape(ty string, rows int, lay string) layout.Shape {
	return layout.MustParse(fmt.Sprintf("%s[%d,%d]%s", ty, rows, xlaCols, lay))
}

// skipUnderRace skips a conformance sweep under -race, which is there for the workers'
// sharing: the sweep's arrays (a few MiB) take one worker where a worker is granted
// per 4 L2 caches of 1 MiB or more, the workers' splits are TestSplitMatchesReference's,
// and every run without -race checks the sweep whole.
func skipUnderRace(t *testing.T) {
	if raceBuild {
		t.Skip("the conversions against XLA run in the runs without -race")
	}
}

// xlaKernelSets are the kernel sets a type is converted with.
func xlaKernelSets(ty string) []*simd.Kernels {
	if kernelType(ty) {
		return implementations()
	}
	return implementations()[len(implementations())-1:]
}

// relayoutOne relays out src into a new buffer of shape dst with kernel set k.
func relayoutOne(t *testing.T, k string, dst layout.Shape, src *buffer.Buffer) (*buffer.Buffer, string) {
	t.Helper()
	p, err := NewPlan(dst, src.Shape, WithKernel(k))
	if err != nil {
		t.Fatal(err)
	}
	d := buffer.MustNew(dst)
	if err := p.Copy(d, src); err != nil {
		t.Fatal(err)
	}
	return d, p.Kernel()
}

// forEach calls f with each index of a [rows, xlaCols] array and its row-major position.
func forEach(rows int, f func(idx []int64, i int)) {
	idx := make([]int64, 2)
	for r := range rows {
		for c := range xlaCols {
			idx[0], idx[1] = int64(r), int64(c)
			f(idx, r*xlaCols+c)
		}
	}
}

// offsets lists the element offset of each index of shape s (rows × xlaCols) in
// row-major order, by the layout package's index oracle.
func offsets(t *testing.T, s layout.Shape) []int64 {
	ix, err := layout.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	rows := int(s.Dims[0])
	off := make([]int64, rows*xlaCols)
	forEach(rows, func(idx []int64, i int) { off[i] = ix.Offset(idx) })
	return off
}

func TestRelayoutFromF32MatchesXLA(t *testing.T) {
	skipUnderRace(t)
	g := xlagolden.Load(t)
	n := len(g.Input)
	rows := (n + xlaCols - 1) / xlaCols
	src := buffer.MustNew(xlaShape("f32", rows, "{1,0}"))
	forEach(rows, func(idx []int64, i int) { src.SetBits(idx, uint64(g.Input[i%n])) })
	for _, ty := range xlagolden.Types {
		want := make([]uint64, n)
		for i, f := range g.Input {
			want[i] = g.From[ty].At(i)
			if (ty == "f64" || ty == "pred") && xlagolden.IsSubnormal(f) { // the kept value
				want[i] = buffer.ConvertElement(layout.F64, layout.F32, uint64(f))
				if ty == "pred" {
					want[i] = 1
				}
			}
		}
		for _, lay := range xlaLayouts(ty) {
			shape := xlaShape(ty, rows, lay)
			off := offsets(t, shape)
			for _, k := range xlaKernelSets(ty) {
				d, used := relayoutOne(t, k.Name, shape, src)
				for i, o := range off {
					if got := d.BitsAt(o); got != want[i%n] {
						t.Errorf("%s f32→%s%s (%s kernel): f32 0x%08x → 0x%x, XLA 0x%x", k.Name, ty, lay, used, g.Input[i%n], got, want[i%n])
						break
					}
				}
			}
		}
	}
}

func TestRelayoutToF32MatchesXLA(t *testing.T) {
	skipUnderRace(t)
	g := xlagolden.Load(t)
	for _, ty := range xlagolden.Widened {
		w := g.To[ty]
		n := len(w.Pattern)
		rows := max(64, (n+xlaCols-1)/xlaCols) // short pattern lists repeat, so vector loops run
		dst := xlaShape("f32", rows, "{1,0}")
		for _, lay := range xlaLayouts(ty) {
			src := buffer.MustNew(xlaShape(ty, rows, lay))
			forEach(rows, func(idx []int64, i int) { src.SetBits(idx, w.Pattern[i%n]) })
			for _, k := range xlaKernelSets(ty) {
				d, used := relayoutOne(t, k.Name, dst, src)
				for i := range rows * xlaCols {
					if got, want := d.BitsAt(int64(i)), uint64(w.F32[i%n]); got != want {
						t.Errorf("%s %s%s→f32 (%s kernel): 0x%x → 0x%08x, XLA 0x%08x", k.Name, ty, lay, used, w.Pattern[i%n], got, want)
						break
					}
				}
			}
		}
	}
}
