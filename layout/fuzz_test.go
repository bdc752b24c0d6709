package layout

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// anyShape draws an array shape from every construct the parser accepts on one: any
// rank up to 5, dims from 0 to near MaxInt64, bounded dynamic dims, any minor_to_major,
// up to four tiles of any rank (wider than the shape too) with `*` in the first, sizes up
// to MaxInt64, L(n), E(n) right or wrong for the type, S, SC and M. Many draws are
// invalid or too large; those must fail to compile and to parse, alike.
func anyShape(r *rand.Rand) Shape {
	dt := DType(1 + r.IntN(int(Token)-1))
	rank := r.IntN(6)
	big := []int64{1 << 31, 1 << 32, 3037000500, 1 << 62, math.MaxInt64, math.MaxInt64 / 3}
	size := func(lo int64) int64 {
		switch r.IntN(30) {
		case 0:
			return big[r.IntN(len(big))]
		case 1:
			return lo + r.Int64N(1000)
		}
		return lo + r.Int64N(9)
	}
	s := Shape{DType: dt, Dims: make([]int64, rank)}
	for i := range s.Dims {
		s.Dims[i] = size(0)
		if r.IntN(12) == 0 {
			if s.Dynamic == nil {
				s.Dynamic = make([]bool, rank)
			}
			s.Dynamic[i] = true
		}
	}
	l := Layout{MinorToMajor: RowMajor(rank)}
	r.Shuffle(rank, func(i, j int) { l.MinorToMajor[i], l.MinorToMajor[j] = l.MinorToMajor[j], l.MinorToMajor[i] })
	for n := r.IntN(5); n > 0; n-- {
		t := make(Tile, 1+r.IntN(rank+2))
		for i := range t {
			t[i] = size(1)
			if len(l.Tiles) == 0 && i < len(t)-1 && r.IntN(4) == 0 {
				t[i] = Combined
			}
		}
		l.Tiles = append(l.Tiles, t)
	}
	if r.IntN(4) == 0 {
		l.TailPadding = size(1)
	}
	switch r.IntN(6) {
	case 0:
		l.ElementBits = int64(dt.Bits())
	case 1:
		l.ElementBits = 1 + r.Int64N(9)
	case 2:
		l.ElementBits = []int64{1, 2, 4, 8, 16, 32, 64, 128}[r.IntN(8)]
	}
	if r.IntN(8) == 0 {
		l.MemorySpace = r.Int64N(6)
	}
	if r.IntN(8) == 0 && rank > 0 {
		l.Splits = []SplitConfig{{Dim: r.Int64N(int64(rank)), Indices: []int64{1 + r.Int64N(4)}}}
	}
	if r.IntN(8) == 0 {
		l.PrefixBytes = r.Int64N(64)
	}
	if rank == 0 && len(l.Tiles) == 0 && r.IntN(2) == 0 {
		l.MinorToMajor = nil
	}
	s.Layout = l
	return s
}

// checkIndexer checks the invariants every compiled shape keeps: the footprint holds
// every logical element (and its bytes fit int64), offsets of sampled indices lie inside
// it and Index inverts them; when small, the whole array matches the pad-reshape-transpose
// model and every slot decodes as data or padding accordingly.
func checkIndexer(t *testing.T, r *rand.Rand, ix *Indexer) {
	t.Helper()
	s := ix.Shape()
	if ix.FootprintElements() < ix.LogicalElements() || ix.FootprintBytes() < 0 || ix.LogicalBytes() > ix.FootprintBytes() {
		t.Fatalf("%s: footprint %d elements / %d bytes, logical %d / %d", s, ix.FootprintElements(), ix.FootprintBytes(), ix.LogicalElements(), ix.LogicalBytes())
	}
	if ix.LogicalElements() == 0 {
		return
	}
	if ix.FootprintElements() <= 1<<12 {
		roundTrip(t, ix)
		want := model(s)
		if int64(len(want)) != ix.FootprintElements() {
			t.Fatalf("%s: footprint %d, model %d", s, ix.FootprintElements(), len(want))
		}
		idx := make([]int64, ix.Rank())
		for lin := range ix.LogicalElements() {
			if off := ix.Offset(idx); want[off] != lin {
				t.Fatalf("%s %v: offset %d holds %d in the model", s, idx, off, want[off])
			}
			NextIndex(idx, ix.Dims())
		}
		return
	}
	dims := ix.Dims()
	back := make([]int64, len(dims))
	for n := 0; n < 64; n++ {
		idx := make([]int64, len(dims))
		for i, d := range dims {
			switch n {
			case 0:
			case 1:
				idx[i] = d - 1
			default:
				idx[i] = r.Int64N(d)
			}
		}
		off := ix.Offset(idx)
		if off < 0 || off >= ix.FootprintElements() {
			t.Fatalf("%s %v: offset %d outside the footprint %d", s, idx, off, ix.FootprintElements())
		}
		if !ix.Index(off, back) || !slices.Equal(back, idx) {
			t.Fatalf("%s: Index(%d) = %v, want %v", s, off, back, idx)
		}
	}
}

// FuzzLayout draws shapes from anyShape: Compile and Parse of the printed form must agree
// on accepting them, and every accepted one keeps checkIndexer's invariants.
func FuzzLayout(f *testing.F) {
	testenv.FuzzRand(f, 16, func(t *testing.T, r *rand.Rand) {
		s := anyShape(r)
		text := s.String()
		parsed, perr := Parse(text)
		var pe *ParseError
		if perr != nil && !errors.As(perr, &pe) {
			t.Fatalf("Parse(%q): %v is not a *ParseError", text, perr)
		}
		ix, cerr := Compile(s)
		unsized := errors.Is(cerr, ErrUnsized)
		if (perr == nil) != (cerr == nil || unsized) {
			t.Fatalf("%s: Parse says %v, Compile says %v", text, perr, cerr)
		}
		if perr == nil && parsed.String() != text {
			t.Fatalf("Parse(%q).String() = %q", text, parsed.String())
		}
		if cerr == nil {
			checkIndexer(t, r, ix)
		}
	})
}

func TestAnyShapeCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	accepted, tiled, combined, wider := 0, 0, 0, 0
	for range 3000 {
		s := anyShape(r)
		ix, err := Compile(s)
		if err != nil {
			continue
		}
		accepted++
		checkIndexer(t, r, ix)
		if len(s.Layout.Tiles) > 1 {
			tiled++
		}
		if len(ix.Levels()) > 1 && ix.Levels()[1].Name == "combined" {
			combined++
		}
		for i, st := range ix.steps {
			if i > 0 && st.lead > 0 {
				wider++
				break
			}
		}
	}
	t.Logf("3000 draws: %d compile, %d multi-level, %d with '*', %d with a later wider tile", accepted, tiled, combined, wider)
	if accepted < 500 || tiled < 100 || combined < 50 || wider < 50 {
		t.Error("anyShape no longer draws enough of each family")
	}
}
