package tpu

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
	// ArrDefaultTiling: the generation's default tiled layout, where an untiled (or
	// otherwise unloadable) layout was declared.
	ArrDefaultTiling = "default-tiling"
	// ArrShifted: the declared layout moved by whole tiles.
	ArrShifted = "shifted"

	// The conversion mistakes: values in the declared places, converted otherwise.

	// ArrTruncated: floats rounded toward zero (for f32 → bf16: the high halves of the
	// f32 words) instead of to nearest even.
	ArrTruncated = "truncated"
	// ArrF16Bits: f16 bits where bf16 was expected.
	ArrF16Bits = "f16-bits"
	// ArrBF16Bits: bf16 bits where f16 was expected.
	ArrBF16Bits = "bf16-bits"
	// ArrHighHalves: the high 16 bits of the f32 values where f16 was expected.
	ArrHighHalves = "f32-high-halves"
	// ArrByteSwapped: 16-bit values with their two bytes swapped (big-endian).
	ArrByteSwapped = "byte-swapped"
	// ArrNaNBits: the right values, but NaNs with other bits than the conversion gives
	// (another NaN canonicalisation). No longer named: every candidate is scored with
	// the comparison's rule that a NaN matches any NaN, so the declared layout explains
	// as much; validate's report counts such NaNs instead.
	ArrNaNBits = "nan-bits"
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
	// Best is the candidate explaining strictly more elements than any other of another
	// arrangement and than the declared layout; when there is none (nothing explains
	// more than the declared layout, or several arrangements tie), Best is the declared
	// layout's candidate, which names nothing.
	Best Candidate `json:"best"`
	// Tied lists the candidates that tie for the most elements, more than the declared
	// layout explains, when there are several: none of them is named.
	Tied []Candidate `json:"tied,omitempty"`
	// Examined is the number of elements compared per candidate (all of them, or an
	// even sample of about a million for large arrays).
	Examined int64 `json:"examined"`
	// Candidates lists every arrangement tried, best first.
	Candidates []Candidate `json:"candidates"`
}

// String names the best arrangement and how much it explains.
func (d *Diagnosis) String() string {
	b := d.Best
	if b.Matched == 0 && len(d.Tied) == 0 && d.Examined > 0 {
		// Naming the declared layout at 0% would say it is the answer; nothing is.
		return fmt.Sprintf("none: no arrangement tried explains any of the %d elements (the values differ, not only their places)", d.Examined)
	}
	s := fmt.Sprintf("%s (%s): %s of %d elements match", b.Arrangement, b.Description, Percent(b.Fraction), d.Examined)
	if len(d.Tied) > 0 {
		var names []string
		for _, c := range d.Tied {
			names = append(names, c.Arrangement)
		}
		s = fmt.Sprintf("no single arrangement: %s explain equally many elements; ", strings.Join(names, ", ")) + s
	}
	if b.Arrangement == ArrDeclared && b.Matched < d.Examined {
		if n := d.Examined - b.Matched; n == 1 {
			s += "; 1 element differs in place"
		} else {
			s += fmt.Sprintf("; %d elements differ in place", n)
		}
	}
	return s
}

// arrangement is a candidate's placement model: where each element's bits sit.
type arrangement struct {
	Candidate
	bits int
	pos  func(idx []int64) int64 // bit offset in the image
	conv func(uint64) uint64     // stored bits → image dtype bits; nil: identity
	// expect, when set, gives the bits the arrangement expects from the reference's
	// stored bits, instead of the reference converted to the image's type.
	expect func(ref uint64) uint64
	// match, when set, replaces bit equality.
	match      func(got, want uint64) bool
	conversion bool // a conversion mistake, not a placement
	// fp fingerprints the positions and expected bits over the examined elements: two
	// candidates with the same fingerprint are one hypothesis under two names.
	fp uint64
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
	tilesR, tilesC := layout.CeilDiv(dims[n-2], rows), layout.CeilDiv(dims[n-1], t.L)
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

// candidates builds the arrangements to try for an image of shape s (with the indexer
// ix) against a reference of type refDT: the placements, then the conversion mistakes.
func candidates(s layout.Shape, ix *layout.Indexer, refDT layout.DType, o CheckOptions) ([]arrangement, error) {
	out, err := placements(s, ix, o)
	if err != nil {
		return nil, err
	}
	b, _ := elementBits(s.DType)
	pos := func(idx []int64) int64 { return ix.Offset(idx) * int64(ix.ElementBits()) }
	return append(out, conversions(s.DType, refDT, b, pos)...), nil
}

// placements builds the arrangements that place the right values elsewhere.
func placements(s layout.Shape, ix *layout.Indexer, o CheckOptions) ([]arrangement, error) {
	b, err := elementBits(s.DType)
	if err != nil {
		return nil, err
	}
	pl := &placer{s: s, o: o, b: b, p: int64(32 / b), L: int64(o.Target.Lanes), rowMajor: layout.RowMajor(len(s.Dims))}
	// The declared layout by the layout package's formula, for a layout the TPU model
	// cannot load: so that it is always a candidate, and first.
	if _, err := NewMemTiling(o.Target, s); err != nil {
		pl.add(ArrDeclared, "the declared layout "+s.Layout.String(), s.String(), b,
			func(idx []int64) int64 { return ix.Offset(idx) * int64(ix.ElementBits()) }, nil)
	}
	if len(s.Dims) == 1 {
		pl.vector()
		return pl.out, nil
	}
	base, declared, err := pl.reference()
	if err != nil {
		return nil, err
	}
	pl.tilings(base)
	pl.untiled()
	if pl.p > 1 {
		t := base
		t.swap = true
		desc := "the slots of each word reversed"
		if b == 16 {
			desc = "the 16-bit halves of each word swapped (first row in the high half)"
		}
		pl.add(ArrSwappedSlots, desc, "", b, t.pos, nil)
	}
	if err := pl.f32Values(); err != nil {
		return nil, err
	}
	if declared {
		for _, sh := range []int64{1, -1, 2, -2} {
			t := base
			t.shift = sh
			pl.add(ArrShifted, fmt.Sprintf("the declared layout moved by %+d tile(s) (%+d bytes)", sh, sh*base.t0*pl.L*int64(b)/8),
				"", b, t.pos, nil)
		}
	}
	return pl.out, nil
}

// placer collects the placements of an image of shape s for [placements].
type placer struct {
	s        layout.Shape
	o        CheckOptions
	b        int   // bits per element
	p        int64 // elements per 32-bit word
	L        int64 // lanes
	rowMajor []int
	out      []arrangement
}

func (pl *placer) add(kind, desc, lay string, bits int, pos func([]int64) int64, conv func(uint64) uint64) {
	pl.out = append(pl.out, arrangement{Candidate: Candidate{Arrangement: kind, Description: desc, Layout: lay},
		bits: bits, pos: pos, conv: conv})
}

// shape writes the image's shape with type dt and the layout m2m and tiles.
func (pl *placer) shape(dt layout.DType, m2m []int, tiles ...layout.Tile) string {
	l := layout.Layout{MinorToMajor: m2m, Tiles: tiles}
	if dt.IsSubByte() {
		l.ElementBits = int64(dt.Bits())
	}
	return layout.NewShape(dt, pl.s.Dims...).WithLayout(l).String()
}

// packTile is the tiling with first tile (t0, L), packed when elements share words.
func (pl *placer) packTile(t0 int64) []layout.Tile {
	if pl.p == 1 {
		return []layout.Tile{{t0, pl.L}}
	}
	return []layout.Tile{{t0, pl.L}, {pl.p, 1}}
}

func (pl *placer) untiled() {
	pl.add(ArrUntiled, "untiled row-major", pl.shape(pl.s.DType, pl.rowMajor), pl.b, rowMajorPos(pl.s.Dims, pl.b), nil)
}

// vector adds the placements of a rank-1 image: the declared layout when the TPU model
// loads it, untiled, and the declared layout with its slots reversed.
func (pl *placer) vector() {
	s, b, p := pl.s, pl.b, pl.p
	m, err := NewMemTiling(pl.o.Target, s)
	if err == nil {
		pl.add(ArrDeclared, "the declared layout "+s.Layout.String(), s.String(), b, func(idx []int64) int64 {
			return m.Locate(idx).BitOffset
		}, nil)
	}
	pl.untiled()
	if p > 1 && err == nil {
		pl.add(ArrSwappedSlots, "the declared layout with the slots of each word reversed", "", b,
			func(idx []int64) int64 {
				loc := m.Locate(idx)
				return loc.BitOffset + int64((int(p)-1-2*loc.Slot)*b)
			}, nil)
	}
}

// reference adds the reference tiling, the declared one when the TPU model loads it
// (declared is then true), else the generation's default, and returns its model.
func (pl *placer) reference() (base tiled, declared bool, err error) {
	s := pl.s
	var t0 int64
	if m, err := NewMemTiling(pl.o.Target, s); err == nil {
		t0, declared = m.t0, true
	} else {
		l, err := DefaultLayout(pl.o.Generation, s.DType, s.Dims)
		if err != nil {
			return base, false, err
		}
		t0 = l.Tiles[0][0]
	}
	base = tiled{dims: s.Dims, bits: pl.b, t0: t0, L: pl.L, pack: pl.p}
	if declared {
		pl.add(ArrDeclared, "the declared layout "+s.Layout.String(), s.String(), pl.b, base.pos, nil)
	} else {
		pl.add(ArrDefaultTiling, fmt.Sprintf("the %s default tiling", pl.o.Generation),
			pl.shape(s.DType, pl.rowMajor, pl.packTile(t0)...), pl.b, base.pos, nil)
	}
	return base, declared, nil
}

// tilings adds the other tilings of the reference one, base: without packing, with
// stacked rows, with other first tiles, and with the last two dims transposed.
func (pl *placer) tilings(base tiled) {
	dt, b, p, L, t0 := pl.s.DType, pl.b, pl.p, pl.L, base.t0
	if p > 1 {
		t := base
		t.pack = 1
		pl.add(ArrNoPacking, fmt.Sprintf("T(%d,%d) tiles without the (%d,1) packing", t0, L, p),
			pl.shape(dt, pl.rowMajor, layout.Tile{t0, L}), b, t.pos, nil)
		t = base
		t.stacked = true
		pl.add(ArrStackedRows, fmt.Sprintf("T(%d,%d)(%d,1,1,1): rows r and r+%d share a word", t0, L, p, t0),
			pl.shape(dt, pl.rowMajor, layout.Tile{t0, L}, layout.Tile{p, 1, 1, 1}), b, t.pos, nil)
	}
	for r := int64(1); r <= max(8*p, 2*t0); r *= 2 {
		if r == t0 || r%p != 0 {
			continue
		}
		t := base
		t.t0 = r
		pl.add(ArrFirstTile, fmt.Sprintf("first tile (%d,%d) instead of (%d,%d)", r, L, t0, L),
			pl.shape(dt, pl.rowMajor, pl.packTile(r)...), b, t.pos, nil)
	}
	t := base
	t.trans = true
	m2m := slices.Clone(pl.rowMajor)
	m2m[0], m2m[1] = m2m[1], m2m[0]
	pl.add(ArrTransposed, "the last two dims transposed", pl.shape(dt, m2m, pl.packTile(t0)...), b, t.pos, nil)
}

// f32Values adds, for a bf16 or f16 image, f32 values where the image's were expected,
// tiled as the generation tiles f32 and untiled.
func (pl *placer) f32Values() error {
	dt, dims := pl.s.DType, pl.s.Dims
	if dt != layout.BF16 && dt != layout.F16 {
		return nil
	}
	round := func(v uint64) uint64 { return uint64(simd.F32ToBF16Bits(uint32(v))) }
	if dt == layout.F16 {
		round = func(v uint64) uint64 { return uint64(simd.F32ToF16Bits(uint32(v))) }
	}
	fl, err := DefaultLayout(pl.o.Generation, layout.F32, dims)
	if err != nil {
		return err
	}
	ft0 := fl.Tiles[0][0]
	t := tiled{dims: dims, bits: 32, t0: ft0, L: pl.L, pack: 1}
	pl.add(ArrF32, fmt.Sprintf("f32 values in T(%d,%d) where %s was expected", ft0, pl.L, dt),
		layout.NewShape(layout.F32, dims...).WithLayout(fl).String(), 32, t.pos, round)
	pl.add(ArrF32, fmt.Sprintf("untiled f32 values where %s was expected", dt),
		layout.NewShape(layout.F32, dims...).String(), 32, rowMajorPos(dims, 32), round)
	return nil
}

// Diagnose tries candidate arrangements of the image's bytes against the reference and
// names the one the image actually holds: the declared layout, no pair packing, rows r
// and r+8 paired ((p,1,1,1)), another first-tile row count ((16,128) vs (8,128)), the
// array transposed, untiled row-major, swapped 16-bit halves, f32 where bf16 was
// expected, or the declared layout off by whole tiles; and the conversion mistakes, the
// declared places holding values converted otherwise: truncated instead of rounded to
// nearest even, f16 bits for bf16 or the reverse, the high halves of f32 words for f16,
// or byte-swapped 16-bit elements. The reference is converted to the image's type as
// [buffer.ConvertElement] does, and a NaN matches any NaN, as in [buffer.Compare]. Every candidate's positions come
// from this package's own tile model, never from the relayout engine (the declared
// layout of an image the TPU cannot load comes from the layout package's formula).
// Arrays of more than about a million elements are sampled evenly. The image is read a
// batch of samples at a time in its own order, and the pages of mapped buffers are
// released as they are read (see [buffer.Buffer.ReleasePages]), so that resident memory
// stays a few dozen MiB whatever the sizes and the candidates' arrangements.
//
// A candidate is named (as Best) only when it explains more elements than the declared
// layout and than any other arrangement; a tie names none ([Diagnosis.Tied]).
func Diagnose(image, reference *buffer.Buffer, opts CheckOptions) (*Diagnosis, error) {
	o := opts.orDefault()
	if !slices.Equal(image.Shape.Dims, reference.Shape.Dims) {
		return nil, fmt.Errorf("%w: image dims %v, reference dims %v", ErrMismatch, image.Shape.Dims, reference.Shape.Dims)
	}
	idt, rdt := image.DType(), reference.DType()
	if !buffer.CanConvert(idt, rdt) {
		return nil, fmt.Errorf("%w: a %s reference cannot be compared with a %s image", ErrMismatch, rdt, idt)
	}
	// The reference in the image's type, converted as buffer (and tpulayout convert) do.
	conv, err := converter(idt, rdt)
	if err != nil {
		conv = func(b uint64) uint64 { return buffer.ConvertElement(idt, rdt, b) }
	}
	if len(image.Shape.Dims) == 0 {
		return nil, fmt.Errorf("%w: a scalar has no arrangement to diagnose", ErrMismatch)
	}
	cands, err := candidates(image.Shape, image.Indexer(), rdt, o)
	if err != nil {
		return nil, err
	}
	dims := image.Shape.Dims
	total := layout.Elements(dims)
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
	// The comparison's rule (buffer.Compare): any NaN matches any NaN. Candidates with
	// the image's width, or converted to its type, hold image-type bits.
	ibits := int(image.Indexer().ElementBits())
	var isNaN func(uint64) bool
	if idt.IsFloat() {
		isNaN = nanTest(idt, ibits)
	}
	pr := newProber(image, len(cands), isNaN)
	idx := make([]int64, len(dims))
	for k := int64(0); ; k++ {
		if k%stride == 0 {
			d.Examined++
			raw := reference.Bits(idx)
			exp := conv(raw)
			for i := range cands {
				c := &cands[i]
				off := c.pos(idx)
				e := exp
				if c.expect != nil {
					e = c.expect(raw)
				}
				c.fp = (c.fp^uint64(off))*0x100000001b3 ^ e*0x9e3779b97f4a7c15
				if off < 0 || off+int64(c.bits) > limit {
					continue
				}
				c.Compared++
				pr.add(i, off, e)
			}
			if d.Examined%probeBatch == 0 {
				pr.flush(cands)
				reference.ReleasePages(0, int64(len(reference.Data)))
			}
		}
		if !layout.NextIndex(idx, dims) {
			break
		}
	}
	pr.flush(cands)
	for i := range cands {
		c := &cands[i]
		c.Fraction = float64(c.Matched) / float64(d.Examined)
		if c.match != nil || c.bits != cands[0].bits || c.conv != nil {
			c.fp = ^c.fp // another comparison or width: another hypothesis
		}
	}
	slices.SortStableFunc(cands, func(a, b arrangement) int {
		switch {
		case a.Matched > b.Matched:
			return -1
		case a.Matched < b.Matched:
			return 1
		}
		return 0
	})
	d.Best, d.Tied = pick(cands)
	for _, c := range cands {
		// A conversion mistake that explains no more than the declared layout says
		// nothing: it is left out of the list.
		if c.conversion && c.Matched <= declaredMatched(cands) {
			continue
		}
		d.Candidates = append(d.Candidates, c.Candidate)
	}
	return d, nil
}

// probeBatch is how many examined elements Diagnose gathers before it reads their
// places in the image.
const probeBatch = 1 << 14

// releaseBytes is how much of a mapped image the prober reads between releases.
const releaseBytes = 16 << 20

// probe is an examined element's place in the image under one candidate (a bit offset)
// and the bits the candidate expects there.
type probe struct {
	off int64
	e   uint64
}

// prober matches the examined elements of each candidate against the image a batch at
// a time, each batch in the image's order, one releaseBytes region after the other,
// releasing each region's pages of a mapped image once read: candidates that place
// elements all over the image (transposed, say) then keep little of it resident.
type prober struct {
	image  *buffer.Buffer
	ibits  int
	isNaN  func(uint64) bool
	probes [][]probe // by candidate
	order  []probe   // a candidate's probes sorted by region
	count  []int     // probes per region
}

func newProber(image *buffer.Buffer, cands int, isNaN func(uint64) bool) *prober {
	regions := int64(len(image.Data))/releaseBytes + 1
	return &prober{image: image, ibits: int(image.Indexer().ElementBits()), isNaN: isNaN,
		probes: make([][]probe, cands), count: make([]int, regions+1)}
}

func (p *prober) add(cand int, off int64, e uint64) {
	p.probes[cand] = append(p.probes[cand], probe{off, e})
}

// flush matches the gathered probes of every candidate and counts the matches.
func (p *prober) flush(cands []arrangement) {
	for i := range cands {
		ps := p.probes[i]
		if !p.image.Mapped() {
			p.match(&cands[i], ps)
		} else {
			p.byRegion(&cands[i], ps)
		}
		p.probes[i] = ps[:0]
	}
}

// byRegion matches ps in the order of the image's regions, releasing each once read.
func (p *prober) byRegion(c *arrangement, ps []probe) {
	clear(p.count)
	region := func(pb probe) int { return int(pb.off / 8 / releaseBytes) }
	for _, pb := range ps {
		p.count[region(pb)+1]++
	}
	for r := 1; r < len(p.count); r++ {
		p.count[r] += p.count[r-1]
	}
	p.order = slices.Grow(p.order[:0], len(ps))[:len(ps)]
	for _, pb := range ps {
		r := region(pb)
		p.order[p.count[r]] = pb
		p.count[r]++
	}
	start := 0
	for r := 0; start < len(p.order); r++ {
		end := p.count[r]
		if end > start {
			p.match(c, p.order[start:end])
			from := int64(r) * releaseBytes
			p.image.ReleasePages(from, min(from+releaseBytes+8, int64(len(p.image.Data))))
		}
		start = end
	}
}

// match counts the probes whose image bits are what c expects there. The comparison's
// rule (buffer.Compare): any NaN matches any NaN; candidates with the image's width, or
// converted to its type, hold image-type bits.
func (p *prober) match(c *arrangement, ps []probe) {
	for _, pb := range ps {
		v := readBits(p.image.Data, pb.off, c.bits)
		if c.conv != nil {
			v = c.conv(v)
		}
		switch {
		case v == pb.e, c.match != nil && c.match(v, pb.e):
			c.Matched++
		case p.isNaN != nil && (c.bits == p.ibits || c.conv != nil) && p.isNaN(v) && p.isNaN(pb.e):
			c.Matched++
		}
	}
}

// pick chooses the candidate to name among cands (sorted best first, the declared
// layout among them): the top one when it explains more than the declared layout and
// no candidate of another arrangement explains as much; else the declared layout, with
// the tied candidates (one per hypothesis) when several share the top.
//
// Candidates that place and expect every examined element alike (such as untiled and
// T(t0,128) tiles without packing for an array 128 wide) are one hypothesis: they do
// not tie with each other, and the first of them is named.
func pick(cands []arrangement) (Candidate, []Candidate) {
	var declared *arrangement
	for i := range cands {
		if cands[i].Arrangement == ArrDeclared {
			declared = &cands[i]
			break
		}
	}
	top := cands[0]
	if declared == nil {
		return top.Candidate, nil
	}
	if top.Matched <= declared.Matched {
		return declared.Candidate, nil
	}
	var tied []Candidate
	var seen []uint64
	for _, c := range cands {
		if c.Matched == top.Matched && !slices.Contains(seen, c.fp) {
			seen = append(seen, c.fp)
			tied = append(tied, c.Candidate)
		}
	}
	if len(tied) > 1 {
		return declared.Candidate, tied
	}
	return top.Candidate, nil
}

// declaredMatched is how many elements the declared layout explains (-1 without it).
func declaredMatched(cands []arrangement) int64 {
	for _, c := range cands {
		if c.Arrangement == ArrDeclared {
			return c.Matched
		}
	}
	return -1
}

// conversions builds the candidates of conversion mistakes for an image of type dt
// (b-bit elements at pos) against a reference of type ref.
func conversions(dt, ref layout.DType, b int, pos func([]int64) int64) []arrangement {
	var out []arrangement
	add := func(kind, desc string, expect func(uint64) uint64, match func(got, want uint64) bool) {
		out = append(out, arrangement{Candidate: Candidate{Arrangement: kind, Description: desc},
			bits: b, pos: pos, expect: expect, match: match, conversion: true})
	}
	if !buffer.CanConvert(dt, ref) {
		return nil
	}
	to := func(dst layout.DType) func(uint64) uint64 {
		return func(r uint64) uint64 { return buffer.ConvertElement(dst, ref, r) }
	}
	right := to(dt)
	if dt.IsFloat() && ref.IsFloat() && dt != ref && dt.Bits() <= ref.Bits() {
		desc := fmt.Sprintf("%s rounded toward zero (truncated) instead of to nearest even", ref)
		if dt == layout.BF16 && ref == layout.F32 {
			desc += ": the high halves of the f32 words"
		}
		trunc := func(r uint64) uint64 { return truncate(dt, ref, r) }
		if dt == layout.BF16 && ref == layout.F32 {
			trunc = func(r uint64) uint64 {
				if r&0x7f800000 == 0x7f800000 && r&0x7fffff != 0 {
					return truncate(dt, ref, r) // NaN: as the conversion makes it
				}
				return r >> 16
			}
		}
		add(ArrTruncated, desc, trunc, nil)
	}
	if ref.IsFloat() {
		switch dt {
		case layout.BF16:
			add(ArrF16Bits, fmt.Sprintf("f16 bits where bf16 was expected (the %s converted to f16)", ref), to(layout.F16), nil)
		case layout.F16:
			add(ArrBF16Bits, fmt.Sprintf("bf16 bits where f16 was expected (the %s converted to bf16)", ref), to(layout.BF16), nil)
			if ref == layout.F32 {
				add(ArrHighHalves, "the high 16 bits of the f32 values where f16 was expected", func(r uint64) uint64 { return r >> 16 }, nil)
			}
		}
	}
	if b == 16 {
		add(ArrByteSwapped, "the two bytes of each 16-bit element swapped (big-endian)",
			func(r uint64) uint64 { v := right(r); return v>>8&0xff | v&0xff<<8 }, nil)
	}
	// No candidate for NaNs with other bits: NaNs match NaNs in every candidate's score,
	// as in the comparison, so it could never explain more than the declared layout.
	return out
}

// nanTest returns whether b-bit values of the float type dt are NaN: by a table for
// types of at most 16 bits.
func nanTest(dt layout.DType, b int) func(uint64) bool {
	isNaN := func(v uint64) bool { return math.IsNaN(math.Float64frombits(buffer.ConvertElement(layout.F64, dt, v))) }
	if dt == layout.F32 {
		return func(v uint64) bool { return math.IsNaN(float64(math.Float32frombits(uint32(v)))) }
	}
	if b > 16 {
		return isNaN
	}
	t := make([]bool, 1<<b)
	for v := range t {
		t[v] = isNaN(uint64(v))
	}
	return func(v uint64) bool { return t[v&uint64(len(t)-1)] }
}

// truncate converts the float bits r of type src to type dst rounding toward zero.
func truncate(dst, src layout.DType, r uint64) uint64 {
	t := buffer.ConvertElement(dst, src, r)
	sv := math.Float64frombits(buffer.ConvertElement(layout.F64, src, r))
	tv := math.Float64frombits(buffer.ConvertElement(layout.F64, dst, t))
	if math.IsNaN(sv) || math.IsInf(sv, 0) {
		return t
	}
	if math.IsNaN(tv) || math.Abs(tv) > math.Abs(sv) {
		// One step toward zero: the magnitude bits less one (sign-magnitude encodings;
		// an overflow to Inf or NaN steps back to the largest finite value).
		return t - 1
	}
	return t
}

// Percent prints a fraction as a percentage with two decimals, trailing zeros dropped
// ("50%", "0.13%"), and as many more as it takes for a fraction that is not 0 or 1 to
// print as neither 0% nor 100%: 1/262144 is "0.0004%", never "0%".
func Percent(f float64) string {
	p := 100 * f
	s := ""
	for dec := 2; dec <= 20; dec++ {
		s = strconv.FormatFloat(p, 'f', dec, 64)
		if f == 0 || f == 1 || (s != strconv.FormatFloat(0, 'f', dec, 64) && s != strconv.FormatFloat(100, 'f', dec, 64)) {
			break
		}
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}
