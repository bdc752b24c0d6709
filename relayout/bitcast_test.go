package relayout

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
)

// bitcastOracle says, from package layout's index math alone, whether src → dst moves
// bytes unchanged: the same dtype and element width, no padding on either side, every
// element at the same offset.
func bitcastOracle(t *testing.T, dst, src layout.Shape) bool {
	t.Helper()
	di, si := mustCompile(dst), mustCompile(src)
	if dst.DType != src.DType || di.ElementBits() != si.ElementBits() ||
		di.FootprintElements() != di.LogicalElements() || si.FootprintElements() != si.LogicalElements() {
		return false
	}
	same := true
	forEachIndex(dst.Dims, func(idx []int64) bool {
		same = di.Offset(idx) == si.Offset(idx)
		return same
	})
	return same
}

// forEachIndex calls f on every logical index of dims in row-major order until f
// returns false.
func forEachIndex(dims []int64, f func(idx []int64) bool) {
	for _, d := range dims {
		if d == 0 {
			return
		}
	}
	idx := make([]int64, len(dims))
	for {
		if !f(idx) {
			return
		}
		k := len(dims) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// checkAgainstOracle copies random source bytes through p into a destination full of
// stale bytes and compares the result, byte for byte, with the per-element oracle: each
// element's bits at its destination offset, the padding (and a packed array's spare
// last bits) zero.
func checkAgainstOracle(t *testing.T, p *Plan, dst, src layout.Shape) {
	t.Helper()
	di, si := mustCompile(dst), mustCompile(src)
	in := make([]byte, si.FootprintBytes())
	rand.New(rand.NewSource(int64(len(in)))).Read(in)
	want := make([]byte, di.FootprintBytes())
	db, sb := di.ElementBits(), si.ElementBits()
	forEachIndex(dst.Dims, func(idx []int64) bool {
		v := buffer.LoadBits(in, si.Offset(idx), sb)
		if dst.DType != src.DType {
			v = buffer.Widen(dst.DType, db, buffer.ConvertElement(dst.DType, src.DType, v))
		}
		buffer.StoreBits(want, di.Offset(idx), db, v)
		return true
	})
	got := bytes.Repeat([]byte{0xA5}, len(want))
	if err := p.CopyBytes(got, in); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("%s: byte %d is %#x, the oracle says %#x", p, i, got[i], want[i])
	}
}

func mustCompile(s layout.Shape) *layout.Indexer {
	ix, err := layout.Compile(s)
	if err != nil {
		panic(err)
	}
	return ix
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// checkBitcastPair checks that the planner takes the copy path exactly when the oracle
// says the pair is a bitcast, and that the plan's bytes are the oracle's. It reports
// whether the pair is a bitcast.
func checkBitcastPair(t *testing.T, dst, src layout.Shape) bool {
	t.Helper()
	p, err := NewPlan(dst, src)
	if err != nil {
		t.Fatalf("NewPlan(%s, %s): %v", dst, src, err)
	}
	want := bitcastOracle(t, dst, src)
	if p.bitcast != want {
		t.Errorf("%s ← %s: planner bitcast %v, oracle %v", dst, src, p.bitcast, want)
	}
	if want && (p.Kernel() != "copy" || !strings.Contains(p.String(), "bitcast")) {
		t.Errorf("%s: a bitcast plan must be the plain copy, got kernel %q", p, p.Kernel())
	}
	checkAgainstOracle(t, p, dst, src)
	return want
}

// TestBitcastSuiteShapes pairs the benchmark suite's layouts, at sizes where tiles divide
// the dims and where they do not, with each other and with row-major.
func TestBitcastSuiteShapes(t *testing.T) {
	found := 0
	sizes := [][2]int64{{1, 128}, {8, 128}, {24, 128}, {32, 128}, {64, 128}, {16, 256}, {20, 128}, {24, 100}, {8, 1}, {1, 1}}
	if raceBuild { // one goroutine: nothing for the race detector; the ordinary runs check all
		sizes = [][2]int64{{8, 128}, {24, 100}, {1, 1}}
	}
	for _, c := range benchCases {
		for _, rc := range sizes {
			dst, src := c.shapes(rc[0], rc[1])
			rm := func(s layout.Shape) layout.Shape {
				s.Layout = layout.Layout{MinorToMajor: layout.RowMajor(len(s.Dims))}
				return s
			}
			rmE := func(s layout.Shape) layout.Shape { // row-major, the same E(n)
				e := s.Layout.ElementBits
				s = rm(s)
				s.Layout.ElementBits = e
				return s
			}
			for _, pr := range [][2]layout.Shape{{dst, src}, {src, dst}, {dst, rm(dst)}, {rm(dst), dst}, {src, rm(src)}, {rmE(dst), dst}, {src, rmE(src)}} {
				if checkBitcastPair(t, pr[0], pr[1]) {
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no bitcast pair among the suite's layouts")
	}
	t.Logf("%d bitcast pairs", found)
}

// TestBitcastHLOLayouts walks the array shapes of testdata/hlo's entry computations and
// pairs each with its row-major form, its form without tiles, and the other shapes of the
// same dtype and dims.
func TestBitcastHLOLayouts(t *testing.T) {
	files, err := filepath.Glob("../testdata/hlo/*.hlo")
	if err != nil || len(files) == 0 {
		t.Fatalf("no modules: %v", err)
	}
	var shapes []layout.Shape
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hlo.Parse(text)
		if err != nil {
			continue // the corpus holds modules the parser refuses on purpose
		}
		shapes = append(shapes, entryArrays(m)...)
	}
	found, pairs := 0, 0
	for i, s := range shapes {
		cands := []layout.Shape{rowMajorForm(s), untiledForm(s)}
		for _, o := range shapes[:i] {
			if o.DType == s.DType && slices.Equal(o.Dims, s.Dims) {
				cands = append(cands, o)
			}
		}
		for _, c := range cands {
			pairs += 2
			if checkBitcastPair(t, c, s) {
				found++
			}
			if checkBitcastPair(t, s, c) {
				found++
			}
		}
	}
	if found == 0 {
		t.Fatal("no bitcast pair among testdata/hlo's layouts")
	}
	t.Logf("%d shapes, %d pairs, %d bitcasts", len(shapes), pairs, found)
}

// maxOracleElements bounds the shapes the per-element oracle walks.
const maxOracleElements = 1 << 16

// entryArrays is the dense array shapes of m's entry: the header's entry layout, the
// entry's signature and its instructions (tuples flattened), each once.
func entryArrays(m *hlo.Module) []layout.Shape {
	var all []layout.Shape
	if m.EntryLayout != nil {
		all = append(all, m.EntryLayout.Params...)
		all = append(all, m.EntryLayout.Result)
	}
	if e := m.Entry; e != nil {
		for _, p := range e.Params {
			all = append(all, p.Shape)
		}
		if e.Result != nil {
			all = append(all, *e.Result)
		}
		for _, in := range e.Instructions {
			if !in.NoShape {
				all = append(all, *in.Shape)
			}
		}
	}
	var out []layout.Shape
	seen := map[string]bool{}
	var walk func(s layout.Shape)
	walk = func(s layout.Shape) {
		if s.Kind != layout.Array {
			for _, e := range s.Elements {
				walk(e)
			}
			return
		}
		n := int64(1)
		for _, d := range s.Dims {
			n *= d
		}
		if n == 0 || n > maxOracleElements || seen[s.String()] {
			return
		}
		if p, err := NewPlan(s, s); err != nil || p.dbits > 64 {
			return // sparse, dynamic or otherwise not a relayout operand; c128 (no oracle)
		}
		seen[s.String()] = true
		out = append(out, s)
	}
	for _, s := range all {
		walk(s)
	}
	return out
}

func rowMajorForm(s layout.Shape) layout.Shape {
	s.Layout = layout.Layout{MinorToMajor: layout.RowMajor(len(s.Dims))}
	return s
}

func untiledForm(s layout.Shape) layout.Shape {
	m2m := s.Layout.MinorToMajor
	if m2m == nil {
		m2m = layout.RowMajor(len(s.Dims))
	}
	s.Layout = layout.Layout{MinorToMajor: slices.Clone(m2m)}
	return s
}

// TestBitcastNearMisses are pairs that look like bitcasts but are not: the planner must
// not copy them as they are, and their bytes (padding included) stay the oracle's.
func TestBitcastNearMisses(t *testing.T) {
	for _, pr := range [][2]string{
		{"f32[20,128]{1,0:T(8,128)}", "f32[20,128]{1,0}"},                     // destination padding rows
		{"f32[20,128]{1,0}", "f32[20,128]{1,0:T(8,128)}"},                     // source padding rows
		{"f32[24,100]{1,0:T(8,128)}", "f32[24,100]{1,0}"},                     // the tile does not divide the columns
		{"f32[24,128]{1,0:T(8,128)L(4096)}", "f32[24,128]{1,0}"},              // tail padding
		{"f32[24,128]{0,1}", "f32[24,128]{1,0}"},                              // a transpose
		{"bf16[24,128]{1,0}", "f32[24,128]{1,0}"},                             // a conversion
		{"s32[24,128]{1,0}", "u32[24,128]{1,0}"},                              // same width, another type
		{"bf16[8,128]{1,0:T(16,128)(2,1)}", "bf16[8,128]{1,0:T(8,128)(2,1)}"}, // padded to 16 rows
		{"bf16[16,128]{1,0:T(8,128)(2,1)}", "bf16[16,128]{1,0}"},              // pairs interleave rows
		{"s4[16,128]{1,0:T(8,128)(8,1)E(4)}", "s4[16,128]{1,0}"},              // nibbles interleave rows
		{"s4[8,128]{1,0:E(4)}", "s4[8,128]{1,0}"},                             // another width
	} {
		dst, src := layout.MustParse(pr[0]), layout.MustParse(pr[1])
		if checkBitcastPair(t, dst, src) {
			t.Errorf("%s ← %s: the oracle calls a near miss a bitcast", pr[0], pr[1])
		}
	}
}

// TestBitcastOptions: the copy path is taken only where no option can make the bytes
// differ: the reference kernel never takes it, and a packed array ending inside a byte
// takes it only when the plan writes the spare bits (the padding) itself. Packed
// bitcasts copy bytes.
func TestBitcastOptions(t *testing.T) {
	cases := []struct {
		dst, src string
		opts     []Option
		bitcast  bool
	}{
		{"f32[24,128]{1,0:T(8,128)}", "f32[24,128]{1,0}", nil, true},
		{"f32[24,128]{1,0:T(8,128)}", "f32[24,128]{1,0}", []Option{WithKernel("reference")}, false},
		{"f32[24,128]{1,0:T(8,128)}", "f32[24,128]{1,0}", []Option{WithPadValue(7)}, true},
		{"s4[3,3]{1,0:E(4)}", "s4[3,3]{1,0:E(4)}", nil, true},
		{"s4[3,3]{1,0:E(4)}", "s4[3,3]{1,0:E(4)}", []Option{WithPadLeave()}, false},
		{"s4[4,4]{1,0:E(4)}", "s4[4,4]{1,0:E(4)}", []Option{WithPadLeave()}, true},
		{"f32[0,128]{1,0:T(8,128)}", "f32[0,128]{1,0}", nil, false},
		{"f32[]", "f32[]", nil, true},
		{"s4[8,256]{1,0:E(4)}", "s4[8,256]{1,0:T(8,256)E(4)}", nil, true},
		{"u2[3,5]{0,1:E(2)}", "u2[3,5]{0,1:E(2)}", nil, true},
		{"pred[8,9]{1,0:E(1)}", "pred[8,9]{1,0:T(8,9)E(1)}", nil, true},
	}
	for _, c := range cases {
		p := mustPlan(t, c.dst, c.src, c.opts...)
		if p.bitcast != c.bitcast {
			t.Errorf("%s: bitcast %v, want %v", p, p.bitcast, c.bitcast)
		}
		if c.bitcast && p.Kernel() != "copy" {
			t.Errorf("%s: a bitcast plan must be the plain copy, got kernel %q", p, p.Kernel())
		}
		if c.opts == nil {
			checkAgainstOracle(t, p, layout.MustParse(c.dst), layout.MustParse(c.src))
		}
	}
}

// TestPlanStringCommonRun: a plan that is not a bitcast names the longest run contiguous
// on both sides.
func TestPlanStringCommonRun(t *testing.T) {
	run := regexp.MustCompile(`longest common run \d+ elements`)
	checkPlans(t, "names", func(p *Plan) string { return run.FindString(p.String()) }, []planCase[string]{
		{"f32[24,256]{1,0:T(8,128)}", "f32[24,256]{1,0}", "longest common run 128 elements"},
		{"f32[24,128]{0,1}", "f32[24,128]{1,0}", "longest common run 1 elements"},
	})
}
