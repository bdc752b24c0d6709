package validate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// Options sets how [Compare] checks a dump. The zero value asks for bit-exact equality,
// ignores padding, and describes vregs of a v5e.
type Options struct {
	Tolerance Tolerance
	// CheckPadding also requires every padding element of the dump to be zero.
	CheckPadding bool
	// Gen is the TPU generation whose vreg geometry the report uses; "" means "v5e".
	Gen string
	// MaxListed is how many mismatches (and non-zero padding elements) the report lists:
	// 0 means 20, a negative value none.
	MaxListed int
	// Stage, when set, is called as each stage starts ("comparing", "checking padding",
	// "diagnosing"), for progress displays.
	Stage func(name string)
}

// ErrInput is wrapped by the errors [Compare] returns for bad input.
var ErrInput = errors.New("validate")

// Compare checks dump, the bytes of a device buffer in its layout, against ref, the
// expected array in any layout with the same dims. Bad input (dims or sizes that differ,
// types that cannot be compared, an unknown generation) is an error wrapping [ErrInput].
func Compare(dump, ref *buffer.Buffer, opts Options) (*Report, error) {
	gen, chip, err := checkInput(dump, ref, opts.Gen)
	if err != nil {
		return nil, err
	}
	stage := func(s string) {
		if opts.Stage != nil {
			opts.Stage(s)
		}
	}
	listed := opts.MaxListed
	if listed == 0 {
		listed = 20
	}
	stage("comparing")
	keep := listed
	if keep <= 0 {
		keep = -1 // buffer.Compare reads 0 as its default
	}
	tol := opts.Tolerance
	res, err := buffer.Compare(ref, dump, buffer.CompareOptions{In: dump.DType(), ULP: tol.ULP, Abs: tol.Abs, Rel: tol.Rel, MaxMismatches: keep})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	r := newReport(dump, ref, res, opts, gen)
	mt := r.describeLoad(dump, chip)
	r.listMismatches(dump, ref, res.First, mt)
	if opts.CheckPadding {
		stage("checking padding")
		r.checkPadding(dump, dump.Indexer(), max(listed, 0))
	}
	r.OK = res.Mismatches == 0 && r.PaddingMismatch == 0
	if res.Mismatches > 0 {
		stage("diagnosing")
		d, err := tpu.Diagnose(dump, ref, tpu.CheckOptions{Generation: gen})
		if err != nil {
			r.DiagnosisProblem = cleanErr(err)
		} else {
			r.Diagnosis = d
		}
	}
	return r, nil
}

// checkInput checks that dump and ref can be compared and returns the generation named
// gen ("" for a v5e) and its chip.
func checkInput(dump, ref *buffer.Buffer, genName string) (gen tpu.Generation, chip tpu.Chip, err error) {
	if dump == nil || ref == nil {
		return gen, chip, fmt.Errorf("%w: nil buffer", ErrInput)
	}
	if genName == "" {
		genName = "v5e"
	}
	gen, err = tpu.ParseGeneration(genName)
	if err != nil {
		return gen, chip, fmt.Errorf("%w: generation %q: %w", ErrInput, genName, err)
	}
	chip, err = tpu.ChipOf(gen)
	if err != nil {
		return gen, chip, fmt.Errorf("%w: generation %q: %w", ErrInput, genName, err)
	}
	for _, b := range []struct {
		what string
		buf  *buffer.Buffer
	}{{"dump", dump}, {"reference", ref}} {
		if want := b.buf.Indexer().FootprintBytes(); int64(len(b.buf.Data)) != want {
			return gen, chip, fmt.Errorf("%w: the %s has %d bytes, but the footprint of %s is %d bytes",
				ErrInput, b.what, len(b.buf.Data), b.buf.Shape, want)
		}
	}
	if !slices.Equal(ref.Dims(), dump.Dims()) {
		return gen, chip, fmt.Errorf("%w: the reference is %s, but the dump %s has dims %s",
			ErrInput, layout.NewShape(ref.DType(), ref.Dims()...), dump.Shape, joinDims("[", dump.Dims(), "]"))
	}
	if !buffer.CanConvert(dump.DType(), ref.DType()) {
		return gen, chip, fmt.Errorf("%w: a %s reference cannot be compared with a %s dump", ErrInput, ref.DType(), dump.DType())
	}
	return gen, chip, nil
}

// newReport starts the report of a comparison with its counts and worst errors.
func newReport(dump, ref *buffer.Buffer, res *buffer.CompareResult, opts Options, gen tpu.Generation) *Report {
	r := &Report{
		Layout: dump.Shape.String(), DumpBytes: int64(len(dump.Data)),
		RefShape: ref.Shape.String(), CompareDType: res.In.String(), Tolerance: opts.Tolerance,
		Elements: res.Elements, Identical: res.Identical, Within: res.Within, Mismatches: res.Mismatches,
		NaNMismatches: res.NaNMismatches, NaNBitsDiffer: res.NaNBitsDiffer, SignedZeros: res.SignedZeros,
		MaxAbs: Float(res.MaxAbs), MaxULP: res.MaxULP, First: []Mismatch{},
		PaddingChecked: opts.CheckPadding, FirstPadding: []PaddingMismatch{},
		Generation: gen.String(),
	}
	r.isFloat, r.finiteAbs = dump.DType().IsFloat(), res.MaxAbs
	if res.NaNMismatches > 0 {
		// A NaN against a number has no finite error: the largest error is NaN, as
		// NumPy's max says, never the 0 of no numeric error at all.
		r.MaxAbs = Float(math.NaN())
	}
	r.Rounding = rounding(res)
	if res.Elements > 0 {
		r.Fraction = Float(float64(res.Mismatches) / float64(res.Elements))
	}
	return r
}

// describeLoad says whether the dump's layout loads into vregs of chip and how, and
// returns its memory tiling (nil when it does not load).
func (r *Report) describeLoad(dump *buffer.Buffer, chip tpu.Chip) *tpu.MemTiling {
	mt, err := tpu.NewMemTiling(chip.Target, dump.Shape)
	r.Loadable = err == nil
	if err != nil {
		r.NotLoadable = cleanErr(err)
		return nil
	}
	r.VregLayout = mt.LoadLayout().String()
	return mt
}

// listMismatches lists the mismatches buffer.Compare kept, each with its bits in both
// types, its byte offset and its place in tiles and (when mt is not nil) vregs.
func (r *Report) listMismatches(dump, ref *buffer.Buffer, first []buffer.Mismatch, mt *tpu.MemTiling) {
	ix := dump.Indexer()
	digits := (dump.ElementBits() + 3) / 4
	hex := func(b uint64) string { return fmt.Sprintf("0x%0*x", digits, b) }
	for _, m := range first {
		e := Mismatch{
			Index: m.Index, ByteOffset: ix.ByteOffset(m.Index),
			Expected: Float(m.Expected), Actual: Float(m.Actual), ActualBits: hex(m.ActualBits),
			RefBits: fmt.Sprintf("0x%0*x", (ref.ElementBits()+3)/4, m.ExpectedBits), ULP: m.ULP,
		}
		e.ExpectedBits = hex(buffer.ConvertElement(dump.DType(), ref.DType(), m.ExpectedBits))
		if mt != nil {
			loc := mt.Locate(m.Index)
			pl := mt.LoadLayout().Place(m.Index)
			e.Tile, e.Vreg = loc.Tile, pl.Vreg
			e.Sublane, e.Lane, e.Slot = &pl.Sublane, &pl.Lane, &pl.Slot
		} else if ts := ix.Explain(m.Index); len(ts) > 0 {
			e.Tile = ts[0].Tile
		}
		r.First = append(r.First, e)
	}
}

// rounding describes the ulp profile of the float errors of res: how far and in which
// direction the elements that are not identical are off; "" when there are none or
// some are more than a few ulps off.
func rounding(res *buffer.CompareResult) string {
	// A zero of the other sign is 0 ulp off: no rounding error, said on the elements line.
	n := res.Mismatches + res.Within - res.NaNMismatches - res.SignedZeros
	if !res.In.IsFloat() || n <= 0 {
		return ""
	}
	errs := plural(n, "error")
	if n == 2 {
		errs = "both errors"
	} else if n > 2 {
		errs = "all " + errs
	}
	// Another rounding mode differs from round-to-nearest-even on about half of the
	// elements; a few elements 1 ulp off are not one.
	many := n >= res.Elements/4 && n >= 8
	switch {
	case res.MaxULP <= 1 && res.TowardZero == n && many:
		return fmt.Sprintf("%s 1 ulp toward zero: truncation (rounding toward zero) instead of round-to-nearest-even", errs)
	case res.MaxULP <= 1 && res.AwayFromZero == n && many:
		return fmt.Sprintf("%s 1 ulp away from zero: rounding away from zero instead of to nearest even", errs)
	case res.MaxULP <= 1 && !many:
		return fmt.Sprintf("%s 1 ulp (%d toward zero, %d away from it), too few for another rounding mode",
			errs, res.TowardZero, res.AwayFromZero)
	case res.MaxULP <= 1:
		return fmt.Sprintf("%s at most 1 ulp (%d toward zero, %d away from it): another rounding, such as of ties or rounding twice",
			errs, res.TowardZero, res.AwayFromZero)
	}
	if res.MaxULP <= smallULP {
		return fmt.Sprintf("%s at most %d ulp (%d toward zero, %d away from it)",
			errs, res.MaxULP, res.TowardZero, res.AwayFromZero)
	}
	return "" // large errors: wrong values or places, which the diagnosis is about
}

// smallULP bounds the errors the rounding line describes.
const smallULP = 8

// checkPadding counts padding elements of dump that are not zero. The pages of a mapped
// dump are released as the pass goes, every releaseBytes.
func (r *Report) checkPadding(dump *buffer.Buffer, ix *layout.Indexer, keep int) {
	idx := make([]int64, ix.Rank())
	n := ix.FootprintElements()
	bits := int64(ix.ElementBits())
	digits := (ix.ElementBits() + 3) / 4
	var done int64 // bytes of dump released
	for off := range n {
		if b := off * bits / 8; b-done >= releaseBytes {
			dump.ReleasePages(done, b)
			done = b
		}
		if ix.Index(off, idx) {
			continue
		}
		r.PaddingElements++
		if b := dump.BitsAt(off); b != 0 {
			r.PaddingMismatch++
			if len(r.FirstPadding) < keep {
				r.FirstPadding = append(r.FirstPadding, PaddingMismatch{off, off * bits / 8, fmt.Sprintf("0x%0*x", digits, b)})
			}
		}
	}
}

// releaseBytes is how much of a mapped dump checkPadding reads between releases.
const releaseBytes = 16 << 20

// cleanErr drops the package prefixes of an error for a report.
func cleanErr(err error) string {
	s := err.Error()
	for _, p := range []string{"buffer: ", "relayout: ", "tpu: ", "layout: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}
