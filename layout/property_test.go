package layout

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// nd is a dense row-major array of element ids (logical linear index, or -1 for padding):
// a tiny NumPy for computing layouts the pad-reshape-transpose way, independently of
// Indexer.
type nd struct {
	shape []int64
	data  []int64
}

func (a nd) strides() []int64 {
	s := make([]int64, len(a.shape))
	acc := int64(1)
	for i := len(a.shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= a.shape[i]
	}
	return s
}

// transpose returns the array with dims reordered: out dim i = in dim perm[i].
func (a nd) transpose(perm []int) nd {
	out := nd{shape: make([]int64, len(perm))}
	for i, p := range perm {
		out.shape[i] = a.shape[p]
	}
	out.data = make([]int64, len(a.data))
	in := a.strides()
	idx := make([]int64, len(perm))
	for o := range out.data {
		src := int64(0)
		for i, p := range perm {
			src += idx[i] * in[p]
		}
		out.data[o] = a.data[src]
		NextIndex(idx, out.shape)
	}
	return out
}

// pad grows each dim to size to, filling with -1.
func (a nd) pad(to []int64) nd {
	out := nd{shape: to}
	n := int64(1)
	for _, d := range to {
		n *= d
	}
	out.data = make([]int64, n)
	for i := range out.data {
		out.data[i] = -1
	}
	os := out.strides()
	idx := make([]int64, len(a.shape))
	for _, v := range a.data {
		o := int64(0)
		for i := range idx {
			o += idx[i] * os[i]
		}
		out.data[o] = v
		NextIndex(idx, a.shape)
	}
	return out
}

// model lays out a shape with numpy-style steps: transpose to physical order, reshape to
// merge combined dims, then per tile pad → reshape (q,t pairs) → transpose (q…, t…).
func model(s Shape) []int64 {
	n := int64(1)
	for _, d := range s.Dims {
		n *= d
	}
	a := nd{shape: append([]int64(nil), s.Dims...), data: make([]int64, n)}
	for i := range a.data {
		a.data[i] = int64(i)
	}
	rank := len(s.Dims)
	perm := make([]int, rank)
	for j := range perm {
		perm[j] = s.Layout.MinorToMajor[rank-1-j]
	}
	a = a.transpose(perm)
	for ti, t := range s.Layout.Tiles {
		for len(a.shape) < len(t) {
			a.shape = append([]int64{1}, a.shape...)
		}
		if ti == 0 { // merge '*' dims into the next one: a reshape in row-major order
			off := len(a.shape) - len(t)
			var shape []int64
			var tile Tile
			carry := int64(1)
			for j, d := range a.shape {
				if j >= off && t[j-off] == Combined {
					carry *= d
					continue
				}
				shape = append(shape, carry*d)
				carry = 1
				if j >= off {
					tile = append(tile, t[j-off])
				}
			}
			a.shape, t = shape, tile
		}
		m, k := len(a.shape), len(t)
		to := append([]int64(nil), a.shape...)
		for i := 0; i < k; i++ {
			to[m-k+i] = (to[m-k+i] + t[i] - 1) / t[i] * t[i]
		}
		a = a.pad(to)
		var split []int64
		split = append(split, a.shape[:m-k]...)
		for i := 0; i < k; i++ {
			split = append(split, a.shape[m-k+i]/t[i], t[i])
		}
		a.shape = split
		var p []int
		for j := 0; j < m-k; j++ {
			p = append(p, j)
		}
		for i := 0; i < k; i++ {
			p = append(p, m-k+2*i)
		}
		for i := 0; i < k; i++ {
			p = append(p, m-k+2*i+1)
		}
		a = a.transpose(p)
	}
	// L(n) pads a tiled layout only, as XLA's ArraySize.
	if l := s.Layout.TailPadding; l > 1 && len(s.Layout.Tiles) > 0 {
		for int64(len(a.data))%l != 0 {
			a.data = append(a.data, -1)
		}
	}
	return a.data
}

// randomShape draws a shape and layout whose footprint stays small.
func randomShape(r *rand.Rand) Shape {
	dts := []DType{F32, BF16, S8, S4, F64, Pred, U16, U2, S1}
	dt := dts[r.IntN(len(dts))]
	rank := r.IntN(5)
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = 1 + r.Int64N(12)
		if r.IntN(20) == 0 {
			dims[i] = 0
		}
	}
	l := Layout{MinorToMajor: RowMajor(rank)}
	r.Shuffle(rank, func(i, j int) { l.MinorToMajor[i], l.MinorToMajor[j] = l.MinorToMajor[j], l.MinorToMajor[i] })
	cur := rank
	sizes := []int64{1, 2, 3, 4, 8, 5}
	for n := r.IntN(4); n > 0; n-- {
		// Any tile may have more dims than the shape it applies to (spec Part 1 §3: it
		// reads the shape as if it had leading 1s), the first one with `*` too.
		k := 1 + r.IntN(min(cur, 4)+2)
		t := make(Tile, k)
		for i := range t {
			t[i] = sizes[r.IntN(len(sizes))]
			if len(l.Tiles) == 0 && i < k-1 && r.IntN(6) == 0 {
				t[i] = Combined
			}
		}
		combined := 0
		for _, d := range t {
			if d == Combined {
				combined++
			}
		}
		l.Tiles = append(l.Tiles, t)
		cur = max(cur, k) - combined + k - combined
	}
	if r.IntN(5) == 0 {
		l.TailPadding = 1 + r.Int64N(64)
	}
	if dt.IsSubByte() && r.IntN(2) == 0 {
		l.ElementBits = int64(dt.Bits())
	}
	return Shape{DType: dt, Dims: dims, Layout: l}
}

func TestAgainstPadReshapeTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for cases < 3000 {
		s := randomShape(r)
		ix, err := Compile(s)
		if err != nil {
			t.Fatalf("Compile(%s): %v", s, err)
		}
		if ix.FootprintElements() > 1<<15 {
			continue
		}
		cases++
		want := model(s)
		if int64(len(want)) != ix.FootprintElements() {
			t.Fatalf("%s: footprint %d, model %d", s, ix.FootprintElements(), len(want))
		}
		// Every logical index: offset equals the model's position, inside the footprint,
		// injective, and Index inverts it.
		seen := make(map[int64]bool, ix.LogicalElements())
		pos := make(map[int64]int64, len(want))
		for off, id := range want {
			if id >= 0 {
				pos[id] = int64(off)
			}
		}
		idx := make([]int64, ix.Rank())
		back := make([]int64, ix.Rank())
		for lin := int64(0); lin < ix.LogicalElements(); lin++ {
			off := ix.Offset(idx)
			if off < 0 || off >= ix.FootprintElements() || seen[off] {
				t.Fatalf("%s %v: offset %d outside footprint or repeated", s, idx, off)
			}
			seen[off] = true
			if off != pos[lin] {
				t.Fatalf("%s %v: offset %d, pad-reshape-transpose says %d", s, idx, off, pos[lin])
			}
			if !ix.Index(off, back) || !slices.Equal(back, idx) {
				t.Fatalf("%s: Index(%d) = %v, want %v", s, off, back, idx)
			}
			NextIndex(idx, ix.Dims())
		}
		// Every padding slot decodes as padding.
		for off, id := range want {
			if id < 0 && ix.Index(int64(off), back) {
				t.Fatalf("%s: Index(%d) = %v, but it is padding", s, off, back)
			}
		}
	}
}

func TestOffsetDoesNotAllocate(t *testing.T) {
	ix, _ := Compile(MustParse("bf16[256,1024]{1,0:T(8,128)(2,1)}"))
	idx := []int64{3, 5}
	back := make([]int64, 2)
	if n := testing.AllocsPerRun(100, func() { _ = ix.Offset(idx); _ = ix.Index(267, back) }); n != 0 {
		t.Errorf("Offset+Index allocate %v times", n)
	}
}

func BenchmarkOffset(b *testing.B) {
	ix, _ := Compile(MustParse("bf16[4096,4096]{1,0:T(8,128)(2,1)}"))
	idx := make([]int64, 2)
	b.ReportAllocs()
	for b.Loop() {
		_ = ix.Offset(idx)
		if !NextIndex(idx, ix.Dims()) {
			idx[0] = 0
		}
	}
}
