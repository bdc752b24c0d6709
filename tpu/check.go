package tpu

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// ErrMismatch is wrapped by the errors of [Check] and [Diagnose] when the image and the
// reference cannot be compared at all (different dims, incompatible dtypes).
var ErrMismatch = errors.New("tpu: image and reference do not match")

// CheckOptions tunes [Check] and [Diagnose]. The zero value checks the vregs
// of the image's load layout on an 8 × 128 target, ignores padding, and keeps the first
// 20 mismatches.
type CheckOptions struct {
	// Target is the vreg geometry; zero means Generation's, or 8 × 128.
	Target Target
	// Native checks the vregs of the dtype's native tiling (16,128) for bf16, …) instead
	// of those a plain load of the image's tiling produces. Every element is still read
	// at its memory position; only the vreg coordinates in the report change.
	Native bool
	// CheckPadding also compares every memory padding slot with PaddingBits.
	CheckPadding bool
	PaddingBits  uint64
	// MaxMismatches is how many mismatches the report lists: 0 means 20, < 0 none.
	MaxMismatches int
	// Diagnose runs [Diagnose] when the check fails and attaches its result.
	Diagnose bool
	// Generation gives the target when Target is zero, and the default tilings
	// Diagnose falls back on; zero means [DefaultGeneration] (8 × 128).
	Generation Generation
}

func (o CheckOptions) orDefault() CheckOptions {
	c := o
	if !c.Target.valid() && c.Generation != NoGeneration {
		if chip, err := ChipOf(c.Generation); err == nil {
			c.Target = chip.Target
		}
	}
	c.Target = c.Target.orDefault()
	if c.MaxMismatches == 0 {
		c.MaxMismatches = 20
	}
	return c
}

// Report is the result of [Check]. Counts are of 32-bit words and of element slots.
type Report struct {
	Image      string `json:"image"`
	Reference  string `json:"reference"`
	VregLayout string `json:"vreg_layout"`
	Vregs      int64  `json:"vregs"`
	Words      int64  `json:"words"`
	// Elements is the number of logical elements compared; PaddingSlots the number of
	// padding slots compared (only with CheckPadding).
	Elements          int64 `json:"elements"`
	PaddingSlots      int64 `json:"padding_slots"`
	Mismatches        int64 `json:"mismatches"`
	PaddingMismatches int64 `json:"padding_mismatches"`
	MismatchedWords   int64 `json:"mismatched_words"`
	MismatchedVregs   int64 `json:"mismatched_vregs"`
	// First lists the first mismatches in vreg order, at most MaxMismatches.
	First     []Mismatch `json:"first_mismatches,omitempty"`
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
}

// OK reports whether every compared slot matched.
func (r *Report) OK() bool { return r.Mismatches == 0 && r.PaddingMismatches == 0 }

// String summarises the report on one line, plus one line per listed mismatch.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s vs %s in %s: %d vregs, %d elements", r.Image, r.Reference, r.VregLayout, r.Vregs, r.Elements)
	if r.PaddingSlots > 0 {
		fmt.Fprintf(&b, ", %d padding slots", r.PaddingSlots)
	}
	if r.OK() {
		b.WriteString(": OK")
		return b.String()
	}
	fmt.Fprintf(&b, ": %d element and %d padding mismatches in %d words of %d vregs",
		r.Mismatches, r.PaddingMismatches, r.MismatchedWords, r.MismatchedVregs)
	for _, m := range r.First {
		b.WriteString("\n  " + m.String())
	}
	if r.Diagnosis != nil {
		b.WriteString("\n  diagnosis: " + r.Diagnosis.String())
	}
	return b.String()
}

// Mismatch is one slot whose bits differ from what the reference implies.
type Mismatch struct {
	// Index is the logical index; nil for a padding slot.
	Index      []int64 `json:"index,omitempty"`
	Padding    bool    `json:"padding,omitempty"`
	ByteOffset int64   `json:"byte_offset"`
	Word       int64   `json:"word"`
	// Tile is the memory tile (leading dims…, tile row, tile column).
	Tile     []int64 `json:"tile"`
	Vreg     []int64 `json:"vreg"`
	Sublane  int     `json:"sublane"`
	Lane     int     `json:"lane"`
	Slot     int     `json:"slot"`
	Expected uint64  `json:"expected"`
	Actual   uint64  `json:"actual"`
}

func (m Mismatch) String() string {
	what := fmt.Sprintf("element %v", m.Index)
	if m.Padding {
		what = "padding"
	}
	return fmt.Sprintf("%s: byte %d (word %d.%d, tile %v), vreg %v sublane %d lane %d slot %d: expected %#x, have %#x",
		what, m.ByteOffset, m.Word, m.Slot, m.Tile, m.Vreg, m.Sublane, m.Lane, m.Slot, m.Expected, m.Actual)
}

// converter returns the function mapping a reference element's raw bits to the bits the
// image should hold: identity for equal dtypes, round-to-nearest-even for f32 → bf16 or
// f16, exact widening for bf16 or f16 → f32.
func converter(img, ref layout.DType) (func(uint64) uint64, error) {
	switch {
	case img == ref:
		return func(v uint64) uint64 { return v }, nil
	case ref == layout.F32 && img == layout.BF16:
		return func(v uint64) uint64 { return uint64(simd.F32ToBF16Bits(uint32(v))) }, nil
	case ref == layout.F32 && img == layout.F16:
		return func(v uint64) uint64 { return uint64(simd.F32ToF16Bits(uint32(v))) }, nil
	case ref == layout.BF16 && img == layout.F32:
		return func(v uint64) uint64 { return uint64(simd.BF16BitsToF32(uint16(v))) }, nil
	case ref == layout.F16 && img == layout.F32:
		return func(v uint64) uint64 { return uint64(simd.F16BitsToF32(uint16(v))) }, nil
	}
	return nil, fmt.Errorf("%w: a %s reference cannot be compared with a %s image", ErrMismatch, ref, img)
}

// referenceBits checks that the two buffers are comparable and returns the expected
// image bits of each logical index.
func referenceBits(image, reference *buffer.Buffer) (func([]int64) uint64, error) {
	if !slices.Equal(image.Shape.Dims, reference.Shape.Dims) {
		return nil, fmt.Errorf("%w: image dims %v, reference dims %v", ErrMismatch, image.Shape.Dims, reference.Shape.Dims)
	}
	conv, err := converter(image.Shape.DType, reference.Shape.DType)
	if err != nil {
		return nil, err
	}
	return func(idx []int64) uint64 { return conv(reference.Bits(idx)) }, nil
}

// Check compares a device image with a reference array, vreg by vreg: for every cell of
// every vreg, the bits the hardware would load from the image (at the memory position
// the TPU model gives, [MemTiling]) against the bits the reference implies for the
// element the cell stands for ([VregLayout.Place]). An f32 reference is rounded to
// nearest even for a bf16 or f16 image. The reference may have any layout; its dims
// must equal the image's. The image's layout must be loadable; otherwise the error is a
// [*RuleError] (use [Diagnose] to find what the bytes hold instead).
//
// Check never consults the relayout engine: it is the independent second opinion.
func Check(image, reference *buffer.Buffer, opts CheckOptions) (*Report, error) {
	o := opts.orDefault()
	m, err := NewMemTiling(o.Target, image.Shape)
	if err != nil {
		return nil, err
	}
	want, err := referenceBits(image, reference)
	if err != nil {
		return nil, err
	}
	vl := m.LoadLayout()
	if o.Native && !m.oneD {
		vl = NativeLayout(o.Target, m.bits)
	}
	rep := &Report{Image: image.Shape.String(), Reference: reference.Shape.String(), VregLayout: vl.String()}
	words := int64(o.Target.Words())
	lastWord, lastVreg := int64(-1), int64(-1)
	pad := o.PaddingBits & (1<<m.bits - 1)
	err = forEachCell(m, vl, func(c *cell) {
		if c.first() {
			rep.Vregs++
			rep.Words += words
		}
		var exp uint64
		switch {
		case c.valid:
			exp = want(c.idx)
			rep.Elements++
		case o.CheckPadding && c.backed:
			exp = pad
			rep.PaddingSlots++
		default:
			return
		}
		act := readBits(image.Data, c.loc.BitOffset, m.bits)
		if act == exp {
			return
		}
		if c.valid {
			rep.Mismatches++
		} else {
			rep.PaddingMismatches++
		}
		if w := c.vregNum*words + int64(c.s*o.Target.Lanes+c.l); w != lastWord {
			rep.MismatchedWords++
			lastWord = w
		}
		if c.vregNum != lastVreg {
			rep.MismatchedVregs++
			lastVreg = c.vregNum
		}
		if len(rep.First) < o.MaxMismatches {
			loc := m.locate(c.lead, c.r, c.c, true)
			mm := Mismatch{Padding: !c.valid, ByteOffset: loc.ByteOffset, Word: loc.Word, Tile: loc.Tile,
				Vreg: slices.Clone(c.vreg), Sublane: c.s, Lane: c.l, Slot: c.k, Expected: exp, Actual: act}
			if c.valid {
				mm.Index = slices.Clone(c.idx)
			}
			rep.First = append(rep.First, mm)
		}
	})
	if err != nil {
		return nil, err
	}
	if !rep.OK() && o.Diagnose {
		d, err := Diagnose(image, reference, opts)
		if err != nil {
			return nil, err
		}
		rep.Diagnosis = d
	}
	return rep, nil
}
