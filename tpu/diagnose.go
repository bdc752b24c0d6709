package tpu

import (
	"fmt"
	"slices"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// The arrangements [Diagnose] tries.
const (
	// ArrDeclared: the image's own layout, by the TPU model.
	ArrDeclared = "declared"
	// ArrNoPacking: the first tile without the (p,1) subtile; a tile's elements are
	// row-major, so rows 2k and 2k+1 do not share a word.
	ArrNoPacking = "no-packing"
	// ArrStackedRows: XLA's alternative (t0,128)(p,1,1,1), which pairs row r with row
	// r+t0 of the tile below (r and r+8 for bf16 (8,128)).
	ArrStackedRows = "stacked-rows"
	// ArrFirstTile: the right format with another first-tile row count, such as
	// (16,128) instead of (8,128).
	ArrFirstTile = "first-tile"
	// ArrTransposed: the declared tiling applied to the transposed array (the last two
	// dims swapped).
	ArrTransposed = "transposed"
	// ArrUntiled: plain row-major, no tiles.
	ArrUntiled = "untiled"
	// ArrSwappedSlots: the declared layout with the slots of each word in reverse
	// order: the 16-bit halves swapped, the first row in the high bits.
	ArrSwappedSlots = "swapped-slots"
	// ArrF32: 32-bit floats where 16-bit ones were expected, in the f32 device tiling
	// or untiled; compared after rounding to the image's type.
	ArrF32 = "f32"
	// ArrShifted: the declared layout moved by whole tiles.
	ArrShifted = "shifted"
)

// Candidate is one arrangement Diagnose tried and how much of the image it explains.
type Candidate struct {
	Arrangement string `json:"arrangement"`
	Description string `json:"description"`
	// Layout is the arrangement as an XLA shape when it has one.
	Layout string `json:"layout,omitempty"`
	// Matched elements hold the reference's value at the arrangement's position;
	// Compared elements have that position inside the image.
	Matched  int64 `json:"matched"`
	Compared int64 `json:"compared"`
	// Fraction is Matched over the elements examined.
	Fraction float64 `json:"fraction"`
}

// Diagnosis names the arrangement an image actually holds.
type Diagnosis struct {
	// Best is the candidate explaining most elements (earlier candidates win ties, the
	// declared layout first).
	Best Candidate `json:"best"`
	// Examined is the number of elements compared per candidate (all of them, or an
	// even sample of about a million for large arrays).
	Examined int64 `json:"examined"`
	// Candidates lists every arrangement tried, best first.
	Candidates []Candidate `json:"candidates"`
}

// String names the best arrangement and how much it explains.
func (d *Diagnosis) String() string {
	b := d.Best
	s := fmt.Sprintf("%s (%s): %.4g%% of %d elements match", b.Arrangement, b.Description, 100*b.Fraction, d.Examined)
	if b.Arrangement == ArrDeclared && b.Matched < d.Examined {
		s += fmt.Sprintf("; %d elements differ in place", d.Examined-b.Matched)
	}
	return s
}

// arrangement is a candidate's placement model: where each element's bits sit.
type arrangement struct {
	Candidate
	bits int
	pos  func(idx []int64) int64 // bit offset in the image
	conv func(uint64) uint64     // stored bits → image dtype bits; nil: identity
}

// tiled is the TPU model of a tiled array with XLA's row-major tile order (spec §2.2,
// §3.4), generalised to the wrong arrangements Diagnose tries.
type tiled struct {
	dims    []int64
	bits    int
	t0, L   int64 // first tile (t0, L)
	pack    int64 // rows sharing a word inside a tile: p with (p,1), 1 without
	stacked bool  // (t0,L)(p,1,1,1): the word at (row, col) of a tile holds p stacked tiles
	swap    bool  // slots reversed within the word
	trans   bool  // the array is stored transposed: (…, r, c) sits where (…, c, r) would
	shift   int64 // whole tiles added to every offset
}

func (t tiled) pos(idx []int64) int64 {
	n := len(t.dims)
	dims := t.dims
	r, c := idx[n-2], idx[n-1]
	if t.trans {
		dims = slices.Clone(dims)
		dims[n-2], dims[n-1] = dims[n-1], dims[n-2]
		r, c = c, r
	}
	flat := int64(0)
	for i := 0; i < n-2; i++ {
		flat = flat*dims[i] + idx[i]
	}
	rows := t.t0
	if t.stacked {
		rows *= t.pack
	}
	tilesR, tilesC := ceilDiv(dims[n-2], rows), ceilDiv(dims[n-1], t.L)
	tile := (flat*tilesR+r/rows)*tilesC + c/t.L
	rr, cc := r%rows, c%t.L
	var in, slot int64
	if t.stacked {
		slot = rr / t.t0
		in = (rr%t.t0*t.L+cc)*t.pack + slot
	} else {
		slot = rr % t.pack
		in = (rr/t.pack*t.L+cc)*t.pack + slot
	}
	if t.swap {
		in += t.pack - 1 - 2*slot
	}
	return ((tile+t.shift)*rows*t.L + in) * int64(t.bits)
}

func rowMajorPos(dims []int64, bits int) func([]int64) int64 {
	return func(idx []int64) int64 {
		off := int64(0)
		for i, d := range dims {
			off = off*d + idx[i]
		}
		return off * int64(bits)
	}
}

// candidates builds the arrangements to try for an image of shape s.
func candidates(s layout.Shape, o CheckOptions) ([]arrangement, error) {
	b, err := elementBits(s.DType)
	if err != nil {
		return nil, err
	}
	p := int64(32 / b)
	n := len(s.Dims)
	L := int64(o.Target.Lanes)
	dt := s.DType
	var out []arrangement
	add := func(kind, desc, lay string, bits int, pos func([]int64) int64, conv func(uint64) uint64) {
		out = append(out, arrangement{Candidate: Candidate{Arrangement: kind, Description: desc, Layout: lay},
			bits: bits, pos: pos, conv: conv})
	}
	shapeStr := func(dt layout.DType, m2m []int, tiles ...layout.Tile) string {
		l := layout.Layout{MinorToMajor: m2m, Tiles: tiles}
		if dt.IsSubByte() {
			l.ElementBits = int64(dt.Bits())
		}
		return layout.NewShape(dt, s.Dims...).WithLayout(l).String()
	}
	rowMajor := layout.RowMajor(n)
	untiled := func() {
		add(ArrUntiled, "untiled row-major", shapeStr(dt, rowMajor), b, rowMajorPos(s.Dims, b), nil)
	}
	if n == 1 {
		m, err := NewMemTiling(o.Target, s)
		if err == nil {
			add(ArrDeclared, "the declared layout "+s.Layout.String(), s.String(), b, func(idx []int64) int64 {
				return m.Locate(idx).BitOffset
			}, nil)
		}
		untiled()
		if p > 1 && err == nil {
			add(ArrSwappedSlots, "the declared layout with the slots of each word reversed", "", b,
				func(idx []int64) int64 {
					loc := m.Locate(idx)
					return loc.BitOffset + int64((int(p)-1-2*loc.Slot)*b)
				}, nil)
		}
		return out, nil
	}
	// The reference tiling: the declared one when loadable, else the generation default.
	t0 := int64(0)
	declared := false
	if m, err := NewMemTiling(o.Target, s); err == nil {
		t0, declared = m.t0, true
	} else {
		l, err := DefaultLayout(o.Generation, dt, s.Dims)
		if err != nil {
			return nil, err
		}
		t0 = l.Tiles[0][0]
	}
	base := tiled{dims: s.Dims, bits: b, t0: t0, L: L, pack: p}
	packTile := func(t0 int64) []layout.Tile {
		if p == 1 {
			return []layout.Tile{{t0, L}}
		}
		return []layout.Tile{{t0, L}, {p, 1}}
	}
	if declared {
		add(ArrDeclared, "the declared layout "+s.Layout.String(), s.String(), b, base.pos, nil)
	}
	if p > 1 {
		t := base
		t.pack = 1
		add(ArrNoPacking, fmt.Sprintf("T(%d,%d) tiles without the (%d,1) packing", t0, L, p),
			shapeStr(dt, rowMajor, layout.Tile{t0, L}), b, t.pos, nil)
		t = base
		t.stacked = true
		add(ArrStackedRows, fmt.Sprintf("T(%d,%d)(%d,1,1,1): rows r and r+%d share a word", t0, L, p, t0),
			shapeStr(dt, rowMajor, layout.Tile{t0, L}, layout.Tile{p, 1, 1, 1}), b, t.pos, nil)
	}
	for r := int64(1); r <= max(8*p, 2*t0); r *= 2 {
		if r == t0 || r%p != 0 {
			continue
		}
		t := base
		t.t0 = r
		add(ArrFirstTile, fmt.Sprintf("first tile (%d,%d) instead of (%d,%d)", r, L, t0, L),
			shapeStr(dt, rowMajor, packTile(r)...), b, t.pos, nil)
	}
	{
		t := base
		t.trans = true
		m2m := slices.Clone(rowMajor)
		m2m[0], m2m[1] = m2m[1], m2m[0]
		add(ArrTransposed, "the last two dims transposed", shapeStr(dt, m2m, packTile(t0)...), b, t.pos, nil)
	}
	untiled()
	if p > 1 {
		t := base
		t.swap = true
		desc := "the slots of each word reversed"
		if b == 16 {
			desc = "the 16-bit halves of each word swapped (first row in the high half)"
		}
		add(ArrSwappedSlots, desc, "", b, t.pos, nil)
	}
	if dt == layout.BF16 || dt == layout.F16 {
		round := func(v uint64) uint64 { return uint64(simd.F32ToBF16Bits(uint32(v))) }
		if dt == layout.F16 {
			round = func(v uint64) uint64 { return uint64(simd.F32ToF16Bits(uint32(v))) }
		}
		fl, err := DefaultLayout(o.Generation, layout.F32, s.Dims)
		if err != nil {
			return nil, err
		}
		ft0 := fl.Tiles[0][0]
		t := tiled{dims: s.Dims, bits: 32, t0: ft0, L: L, pack: 1}
		add(ArrF32, fmt.Sprintf("f32 values in T(%d,%d) where %s was expected", ft0, L, dt),
			layout.NewShape(layout.F32, s.Dims...).WithLayout(fl).String(), 32, t.pos, round)
		add(ArrF32, fmt.Sprintf("untiled f32 values where %s was expected", dt),
			layout.NewShape(layout.F32, s.Dims...).String(), 32, rowMajorPos(s.Dims, 32), round)
	}
	if declared {
		for _, sh := range []int64{1, -1, 2, -2} {
			t := base
			t.shift = sh
			add(ArrShifted, fmt.Sprintf("the declared layout moved by %+d tile(s) (%+d bytes)", sh, sh*t0*L*int64(b)/8),
				"", b, t.pos, nil)
		}
	}
	return out, nil
}

// Diagnose tries candidate arrangements of the image's bytes against the reference and
// names the one the image actually holds: the declared layout, no pair packing, rows r
// and r+8 paired ((p,1,1,1)), another first-tile row count ((16,128) vs (8,128)), the
// array transposed, untiled row-major, swapped 16-bit halves, f32 where bf16 was
// expected, or the declared layout off by whole tiles. Every candidate's positions come
// from this package's own tile model, never from the relayout engine. Arrays of more
// than about a million elements are sampled evenly.
func Diagnose(image, reference *buffer.Buffer, opts *CheckOptions) (*Diagnosis, error) {
	o := opts.orDefault()
	want, err := referenceBits(image, reference)
	if err != nil {
		return nil, err
	}
	if len(image.Shape.Dims) == 0 {
		return nil, fmt.Errorf("%w: a scalar has no arrangement to diagnose", ErrMismatch)
	}
	cands, err := candidates(image.Shape, o)
	if err != nil {
		return nil, err
	}
	dims := image.Shape.Dims
	total := product(dims)
	stride := max(total/(1<<20), 1)
	d := &Diagnosis{}
	if total == 0 {
		for _, c := range cands {
			d.Candidates = append(d.Candidates, c.Candidate)
		}
		d.Best = d.Candidates[0]
		return d, nil
	}
	limit := int64(len(image.Data)) * 8
	idx := make([]int64, len(dims))
	for k := int64(0); ; k++ {
		if k%stride == 0 {
			d.Examined++
			exp := want(idx)
			for i := range cands {
				c := &cands[i]
				off := c.pos(idx)
				if off < 0 || off+int64(c.bits) > limit {
					continue
				}
				c.Compared++
				v := readBits(image.Data, off, c.bits)
				if c.conv != nil {
					v = c.conv(v)
				}
				if v == exp {
					c.Matched++
				}
			}
		}
		if !layout.NextIndex(idx, dims) {
			break
		}
	}
	for i := range cands {
		cands[i].Fraction = float64(cands[i].Matched) / float64(d.Examined)
		d.Candidates = append(d.Candidates, cands[i].Candidate)
	}
	slices.SortStableFunc(d.Candidates, func(a, b Candidate) int {
		switch {
		case a.Matched > b.Matched:
			return -1
		case a.Matched < b.Matched:
			return 1
		}
		return 0
	})
	d.Best = d.Candidates[0]
	return d, nil
}
