package main

import (
	"errors"
	"flag"
	"github.com/tpulayout/tpulayout/internal/edgetext"
	"io"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/tpu"
	"github.com/tpulayout/tpulayout/validate"
)

var validateVerb = &verb{
	name:     "validate",
	synopsis: "DUMP --layout SHAPE --ref REF [flags]",
	summary:  "check a device dump against a reference array",
	detail: `Validate checks that DUMP, the raw bytes of a device buffer in the layout SHAPE (exactly
its footprint), holds the array REF: a .npy file, a tensor of a .safetensors file
(--tensor NAME, unless it holds one tensor), or raw bytes of --ref-shape (any layout).
DUMP - is standard input, read whole into memory.

Elements are compared in DUMP's type as convert converts REF: an f32 reference against a
bf16 dump is rounded to nearest even first. --tol relaxes the match, and may repeat or
combine: --tol ulp=N (units in the last place), --tol abs=X, --tol rel=X, or
--tol ulp=1,abs=1e-6. --check-padding also requires every padding element to be zero.

With every element matching, validate prints a short report and exits 0. Otherwise it
exits 1 and reports the mismatching elements and their share, the largest error (in
ulps for floats; for integer types, such as an s8 dump of an f32 REF truncated toward
zero, as a difference, which ulp=N also bounds; NaN against a number counted apart);
the first ones (--max, default 20) with logical index, byte offset, memory tile, vreg,
sublane, lane and slot (for the vregs of --gen, default v5e), and the expected and
actual values and bits; and the diagnosis of what the dump seems to hold instead:
another arrangement (no pair packing, rows r and r+8 paired, another first tile,
transposed, untiled, swapped halves, f32 for bf16, shifted by whole tiles) or another
conversion (truncated instead of rounded to nearest even, f16 bits for bf16 or the
reverse, the high halves of f32 words for f16, byte-swapped 16-bit elements, NaNs with
other bits). A candidate is named only when it explains more elements than the
declared layout and than every other; a tie names none.

The "rounding:" line gives the ulp profile of float errors of at most a few ulps: all
of them 1 ulp toward zero (on many elements) is truncation instead of round to nearest
even; all 1 ulp away from zero, rounding away from zero; a mix within 1 ulp, another
rounding of ties. The "nans:" line counts NaNs whose bits differ from the reference's
converted (they match, being NaN).

With --json the report is one object with the keys ok, dump, layout, ref, ref_shape,
compare_dtype, elements, identical, within_tolerance, mismatches, nan_mismatches and
nan_bits_differ (when not 0), mismatch_fraction, max_abs_error (NaN when a NaN meets a
number), max_ulp_error, rounding (the ulp profile of small float errors), first
(the listed mismatches), padding_checked, padding_elements, padding_mismatches,
first_padding, loadable, vreg_layout and diagnosis (null when everything matches; its
tied lists the arrangements that tie).

A DUMP whose size is not SHAPE's footprint, a REF of other dims, or types that cannot
be compared are bad input: exit 2.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		v := &validateFlags{}
		fs.StringVar(&v.layout, "layout", "", "the `SHAPE` and layout of DUMP, e.g. 'bf16[256,1024]{1,0:T(8,128)(2,1)}'")
		fs.StringVar(&v.ref, "ref", "", "the expected array: a .npy or .safetensors `FILE`, or raw bytes with --ref-shape")
		fs.StringVar(&v.tensor, "tensor", "", "the tensor `NAME` in a .safetensors REF")
		fs.StringVar(&v.refShape, "ref-shape", "", "the `SHAPE` (and layout) of a raw REF")
		fs.Var(&v.tol, "tol", "tolerance `K=V`: ulp=N, abs=X or rel=X (repeat or join with commas)")
		fs.BoolVar(&v.checkPadding, "check-padding", false, "also require DUMP's padding to be zero")
		fs.StringVar(&v.gen, "gen", "v5e", "TPU generation `GEN` whose vreg geometry the report uses")
		fs.IntVar(&v.max, "max", 20, "list at most `N` mismatches")
		fs.BoolVar(&v.asJSON, "json", false, "print the report as JSON")
		fs.BoolVar(&v.progress, "progress", false, "show progress on stderr even when it is not a terminal")
		fs.StringVar(&v.view, "view", "", "read REF's elements as `T`, a type of the same width, bit for bit (a u16 .npy holding bf16 bits: --view bf16)")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "DUMP"); err != nil {
				return err
			}
			return v.run(pos[0], w)
		}
	},
}

type validateFlags struct {
	layout, ref, tensor, refShape, gen string
	tol                                validate.TolFlag
	checkPadding, asJSON, progress     bool
	max                                int
	view                               string
}

func (v *validateFlags) run(dumpPath string, w io.Writer) error {
	if v.layout == "" {
		return usagef("missing --layout SHAPE: the shape and layout of DUMP")
	}
	if v.ref == "" {
		return usagef("missing --ref REF: the expected array (.npy, .safetensors, or raw with --ref-shape)")
	}
	if v.max < 0 {
		return usagef("--max must be at least 0")
	}
	gen, err := tpu.ParseGeneration(v.gen)
	if err != nil {
		return usagef("bad --gen %q: %s", v.gen, edgetext.Clean(err))
	}
	if _, err := tpu.ChipOf(gen); err != nil {
		return usagef("bad --gen %q: %s", v.gen, edgetext.Clean(err))
	}
	prog := newProgress(v.progress, "validate")
	defer prog.Done()
	listed := v.max
	if listed == 0 {
		listed = -1 // Options.MaxListed reads 0 as its default
	}
	c := &convert.Check{Dump: dumpPath, Layout: v.layout, Ref: v.ref, RefShape: v.refShape, Tensor: v.tensor,
		View: v.view, Stdin: stdin, Options: validate.Options{
			Tolerance: v.tol.Tolerance, CheckPadding: v.checkPadding, Gen: v.gen,
			MaxListed: listed, Stage: prog.Stage,
		}}
	res, err := c.Run()
	if err != nil {
		return err
	}
	r := res.Report
	if v.asJSON {
		err = writeJSON(w, r)
	} else {
		_, err = io.WriteString(w, r.String())
	}
	if err != nil {
		return err
	}
	if !r.OK {
		return &mismatch{errors.New(messageText(res.Summary()))}
	}
	return nil
}
