package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

var validateVerb = &verb{
	name:     "validate",
	synopsis: "DUMP --layout SHAPE --ref REF [flags]",
	summary:  "check a device dump against a reference array",
	detail: `Validate checks that DUMP, the raw bytes of a device buffer in the layout SHAPE (exactly
its footprint), holds the array REF: a .npy file, a tensor of a .safetensors file
(--tensor NAME, unless it holds one tensor), or raw bytes of --ref-shape (any layout).

Elements are compared in the narrower of the two types: an f32 reference against a
bf16 dump is rounded to nearest even first. --tol relaxes the match, and may repeat or
combine: --tol ulp=N (units in the last place), --tol abs=X, --tol rel=X, or
--tol ulp=1,abs=1e-6. --check-padding also requires every padding element to be zero.

With every element matching, validate prints a short report and exits 0. Otherwise it
exits 1 and reports the mismatching elements and their share; the first ones (--max,
default 20) with logical index, byte offset, memory tile, vreg, sublane, lane and slot
(for the vregs of --gen, default v5e), and the expected and actual values and bits; and
the diagnosis of what arrangement the dump seems to hold instead (no pair packing, rows
r and r+8 paired, another first tile, transposed, untiled, swapped halves, f32 for bf16,
shifted by whole tiles).

With --json the report is one object with the keys ok, dump, layout, ref, ref_shape,
compare_dtype, elements, identical, within_tolerance, mismatches, mismatch_fraction,
max_abs_error, max_ulp_error, first (the listed mismatches), padding_checked,
padding_elements, padding_mismatches, first_padding, loadable, vreg_layout and
diagnosis (null when everything matches).

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
	tol                                tolerance
	checkPadding, asJSON, progress     bool
	max                                int
}

// tolerance is the --tol flag: ulp=N, abs=X, rel=X, comma-joined or repeated.
type tolerance struct {
	ULP uint64  `json:"ulp"`
	Abs float64 `json:"abs"`
	Rel float64 `json:"rel"`

	given uint8 // keys set so far, one bit each: a key given twice is an error
}

func (t *tolerance) String() string {
	if t == nil || *t == (tolerance{}) {
		return ""
	}
	var parts []string
	if t.ULP > 0 {
		parts = append(parts, fmt.Sprintf("ulp=%d", t.ULP))
	}
	if t.Abs > 0 {
		parts = append(parts, "abs="+strconv.FormatFloat(t.Abs, 'g', -1, 64))
	}
	if t.Rel > 0 {
		parts = append(parts, "rel="+strconv.FormatFloat(t.Rel, 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

func (t *tolerance) Set(s string) error {
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return fmt.Errorf("%q is not K=V (ulp=N, abs=X or rel=X)", part)
		}
		if i := slices.Index([]string{"ulp", "abs", "rel"}, strings.ToLower(k)); i >= 0 {
			if t.given&(1<<i) != 0 {
				return fmt.Errorf("%s given twice; give each of ulp, abs and rel once", k)
			}
			t.given |= 1 << i
		}
		switch strings.ToLower(k) {
		case "ulp":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("ulp=%s: want a whole number of units", v)
			}
			t.ULP = n
		case "abs", "rel":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || math.IsNaN(x) {
				return fmt.Errorf("%s=%s: want a number ≥ 0", k, v)
			}
			if k == "abs" {
				t.Abs = x
			} else {
				t.Rel = x
			}
		default:
			return fmt.Errorf("unknown tolerance %q (want ulp, abs or rel)", k)
		}
	}
	return nil
}

// jfloat is a float64 that JSON prints as a number when finite, else as "NaN", "+Inf"
// or "-Inf".
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return json.Marshal(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return json.Marshal(v)
}

// elemMismatch is one listed mismatching element.
type elemMismatch struct {
	Index        []int64 `json:"index"`
	ByteOffset   int64   `json:"byte_offset"`
	Tile         []int64 `json:"tile,omitempty"`
	Vreg         []int64 `json:"vreg,omitempty"`
	Sublane      *int    `json:"sublane,omitempty"`
	Lane         *int    `json:"lane,omitempty"`
	Slot         *int    `json:"slot,omitempty"`
	Expected     jfloat  `json:"expected"`
	Actual       jfloat  `json:"actual"`
	ExpectedBits string  `json:"expected_bits"` // in DUMP's type
	ActualBits   string  `json:"actual_bits"`
	RefBits      string  `json:"ref_bits"` // as stored in REF
	ULP          uint64  `json:"ulp"`
}

// paddingMismatch is one non-zero padding element.
type paddingMismatch struct {
	Offset     int64  `json:"offset"`
	ByteOffset int64  `json:"byte_offset"`
	Bits       string `json:"bits"`
}

type validateReport struct {
	OK               bool              `json:"ok"`
	Dump             string            `json:"dump"`
	Layout           string            `json:"layout"`
	DumpBytes        int64             `json:"dump_bytes"`
	Ref              string            `json:"ref"`
	RefShape         string            `json:"ref_shape"`
	CompareDType     string            `json:"compare_dtype"`
	Tolerance        tolerance         `json:"tolerance"`
	Elements         int64             `json:"elements"`
	Identical        int64             `json:"identical"`
	Within           int64             `json:"within_tolerance"`
	Mismatches       int64             `json:"mismatches"`
	Fraction         jfloat            `json:"mismatch_fraction"`
	MaxAbs           jfloat            `json:"max_abs_error"`
	MaxULP           uint64            `json:"max_ulp_error"`
	First            []elemMismatch    `json:"first"`
	PaddingChecked   bool              `json:"padding_checked"`
	PaddingElements  int64             `json:"padding_elements"`
	PaddingMismatch  int64             `json:"padding_mismatches"`
	FirstPadding     []paddingMismatch `json:"first_padding"`
	Loadable         bool              `json:"loadable"`
	NotLoadable      string            `json:"not_loadable,omitempty"`
	Generation       string            `json:"generation"`
	VregLayout       string            `json:"vreg_layout,omitempty"`
	Diagnosis        *tpu.Diagnosis    `json:"diagnosis"`
	DiagnosisProblem string            `json:"diagnosis_error,omitempty"`

	dumpType layout.DType
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
		return usagef("bad --gen %q: %s", v.gen, cleanErr(err))
	}
	chip, err := tpu.ChipOf(gen)
	if err != nil {
		return usagef("bad --gen %q: %s", v.gen, cleanErr(err))
	}
	ix, err := compileShape(v.layout)
	if err != nil {
		return fmt.Errorf("--layout: %w", err)
	}
	refKind := kindOf(v.ref)
	if v.refShape != "" && refKind != kindRaw {
		return usagef("--ref-shape is for a raw REF; %s is a %s file with its own dtype and shape", v.ref, refKind)
	}
	st, err := os.Stat(dumpPath)
	if err != nil {
		return fmt.Errorf("cannot read DUMP %s: %s", dumpPath, fileErr(err))
	}
	if st.IsDir() {
		return fmt.Errorf("cannot read DUMP %s: it is a directory", dumpPath)
	}
	if want := ix.FootprintBytes(); st.Size() != want {
		return fmt.Errorf("DUMP %s has %s, but the footprint of %s is %s",
			dumpPath, plural(st.Size(), "byte"), ix.Shape(), plural(want, "byte"))
	}
	prog := newProgress(v.progress, "validate", 0)
	defer prog.finish()
	prog.stage("reading")
	ref, _, err := openArray(v.ref, refKind, v.refShape, "--ref-shape", v.tensor, "REF")
	if err != nil {
		return err
	}
	defer ref.Close()
	if !slices.Equal(ref.Dims(), ix.Dims()) {
		return fmt.Errorf("REF %s is %s, but --layout %s has dims %s",
			v.ref, layout.NewShape(ref.DType(), ref.Dims()...), ix.Shape(), fmtDims(ix.Dims()))
	}
	dump, err := buffer.ReadRaw(dumpPath, ix.Shape())
	if err != nil {
		return fmt.Errorf("cannot read DUMP %s: %s", dumpPath, cleanErr(err))
	}
	defer dump.Close()

	prog.stage("comparing")
	keep := v.max
	if keep == 0 {
		keep = -1 // Compare reads 0 as its default
	}
	res, err := buffer.Compare(ref, dump, buffer.CompareOptions{ULP: v.tol.ULP, Abs: v.tol.Abs, Rel: v.tol.Rel, MaxMismatches: keep})
	if err != nil {
		return fmt.Errorf("cannot compare REF %s (%s) with DUMP (%s): %s", v.ref, ref.DType(), dump.DType(), cleanErr(err))
	}
	r := &validateReport{
		Dump: dumpPath, Layout: ix.Shape().String(), DumpBytes: st.Size(),
		Ref: v.ref, RefShape: ref.Shape.String(), CompareDType: res.In.String(), Tolerance: v.tol,
		Elements: res.Elements, Identical: res.Identical, Within: res.Within, Mismatches: res.Mismatches,
		MaxAbs: jfloat(res.MaxAbs), MaxULP: res.MaxULP, First: []elemMismatch{},
		PaddingChecked: v.checkPadding, FirstPadding: []paddingMismatch{},
		Generation: gen.String(), dumpType: dump.DType(),
	}
	if res.Elements > 0 {
		r.Fraction = jfloat(float64(res.Mismatches) / float64(res.Elements))
	}
	mt, mtErr := tpu.NewMemTiling(chip.Target, dump.Shape)
	r.Loadable = mtErr == nil
	if mtErr != nil {
		r.NotLoadable = cleanErr(mtErr)
	} else {
		r.VregLayout = mt.LoadLayout().String()
	}
	digits := (dump.ElementBits() + 3) / 4
	hex := func(b uint64) string { return fmt.Sprintf("0x%0*x", digits, b) }
	for _, m := range res.First {
		e := elemMismatch{
			Index: m.Index, ByteOffset: ix.ByteOffset(m.Index),
			Expected: jfloat(m.Expected), Actual: jfloat(m.Actual), ActualBits: hex(m.ActualBits),
			RefBits: fmt.Sprintf("0x%0*x", (ref.ElementBits()+3)/4, m.ExpectedBits), ULP: m.ULP,
		}
		if buffer.CanConvert(dump.DType(), ref.DType()) {
			e.ExpectedBits = hex(buffer.ConvertElement(dump.DType(), ref.DType(), m.ExpectedBits))
		} else {
			e.ExpectedBits = e.RefBits
		}
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
	if v.checkPadding {
		prog.stage("checking padding")
		r.checkPadding(dump, ix, max(v.max, 0))
	}
	r.OK = res.Mismatches == 0 && r.PaddingMismatch == 0
	if res.Mismatches > 0 {
		prog.stage("diagnosing")
		d, err := tpu.Diagnose(dump, ref, &tpu.CheckOptions{Generation: gen})
		if err != nil {
			r.DiagnosisProblem = cleanErr(err)
		} else {
			r.Diagnosis = d
		}
	}
	if v.asJSON {
		err = writeJSON(w, r)
	} else {
		err = r.print(w)
	}
	if err != nil {
		return err
	}
	if !r.OK {
		var parts []string
		if r.Mismatches > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d elements differ", r.Mismatches, r.Elements))
		}
		if r.PaddingMismatch > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d padding elements are not zero", r.PaddingMismatch, r.PaddingElements))
		}
		msg := strings.Join(parts, ", ")
		if r.Diagnosis != nil && r.Diagnosis.Best.Arrangement != tpu.ArrDeclared {
			msg += "; the dump looks like " + r.Diagnosis.Best.Arrangement
		}
		return &mismatch{fmt.Errorf("%s", msg)}
	}
	return nil
}

// checkPadding counts padding elements of dump that are not zero.
func (r *validateReport) checkPadding(dump *buffer.Buffer, ix *layout.Indexer, keep int) {
	idx := make([]int64, ix.Rank())
	n := ix.FootprintElements()
	bits := int64(ix.ElementBits())
	digits := (ix.ElementBits() + 3) / 4
	for off := range n {
		if ix.Index(off, idx) {
			continue
		}
		r.PaddingElements++
		if b := dump.BitsAt(off); b != 0 {
			r.PaddingMismatch++
			if len(r.FirstPadding) < keep {
				r.FirstPadding = append(r.FirstPadding, paddingMismatch{off, off * bits / 8, fmt.Sprintf("0x%0*x", digits, b)})
			}
		}
	}
}

func (r *validateReport) print(w io.Writer) error {
	fmt.Fprintf(w, "dump:     %s, %s, %s\n", r.Dump, r.Layout, plural(r.DumpBytes, "byte"))
	cmp := "exact"
	if t := r.Tolerance.String(); t != "" {
		cmp = "tolerance " + t
	}
	fmt.Fprintf(w, "ref:      %s, %s, compared in %s, %s\n", r.Ref, r.RefShape, r.CompareDType, cmp)
	if r.Loadable {
		fmt.Fprintf(w, "vregs:    %s on %s\n", r.VregLayout, r.Generation)
	} else {
		fmt.Fprintf(w, "vregs:    none: %s\n", r.NotLoadable)
	}
	switch {
	case r.Mismatches == 0:
		fmt.Fprintf(w, "elements: all %d match", r.Elements)
		if r.Within > 0 {
			fmt.Fprintf(w, " (%d within tolerance, not identical)", r.Within)
		}
		fmt.Fprintln(w)
	default:
		fmt.Fprintf(w, "elements: %d of %d differ (%s)", r.Mismatches, r.Elements, percent(float64(r.Fraction)))
		if r.Within > 0 {
			fmt.Fprintf(w, ", %d more within tolerance", r.Within)
		}
		fmt.Fprintf(w, "; largest error %s (%d ulp)\n", fmtFloat(float64(r.MaxAbs)), r.MaxULP)
	}
	if r.PaddingChecked {
		if r.PaddingMismatch == 0 {
			fmt.Fprintf(w, "padding:  all %d padding elements are zero\n", r.PaddingElements)
		} else {
			fmt.Fprintf(w, "padding:  %d of %d padding elements are not zero; first at byte %d (%s)\n",
				r.PaddingMismatch, r.PaddingElements, r.FirstPadding[0].ByteOffset, r.FirstPadding[0].Bits)
		}
	}
	if r.OK {
		fmt.Fprintln(w, "result:   OK")
		return nil
	}
	fmt.Fprintln(w, "result:   MISMATCH")
	if len(r.First) > 0 {
		fmt.Fprintf(w, "\nfirst %d mismatches, in row-major order:\n", len(r.First))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "index\tbyte\ttile\tvreg\tsublane\tlane\tslot\texpected\tactual\t\n")
		for _, e := range r.First {
			opt := func(p *int) string {
				if p == nil {
					return "-"
				}
				return strconv.Itoa(*p)
			}
			tile, vreg := "-", "-"
			if e.Tile != nil {
				tile = fmtIndex(e.Tile)
			}
			if e.Vreg != nil {
				vreg = fmtIndex(e.Vreg)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s (%s)\t%s (%s)\t\n", fmtIndex(e.Index), e.ByteOffset, tile, vreg,
				opt(e.Sublane), opt(e.Lane), opt(e.Slot),
				fmtFloat(float64(e.Expected)), e.ExpectedBits, fmtFloat(float64(e.Actual)), e.ActualBits)
		}
		tw.Flush()
	}
	switch {
	case r.Diagnosis != nil:
		d := r.Diagnosis
		fmt.Fprintf(w, "\ndiagnosis: %s\n", diagnosisLine(d.Best, d.Examined))
		var others []tpu.Candidate
		for _, c := range d.Candidates {
			if c != d.Best && len(others) < 4 {
				others = append(others, c)
			}
		}
		if len(others) > 0 {
			fmt.Fprintln(w, "next best:")
			for _, c := range others {
				fmt.Fprintf(w, "  %s\n", diagnosisLine(c, d.Examined))
			}
		}
	case r.DiagnosisProblem != "":
		fmt.Fprintf(w, "\ndiagnosis: none (%s)\n", r.DiagnosisProblem)
	}
	return nil
}

// diagnosisLine describes one candidate arrangement.
func diagnosisLine(c tpu.Candidate, examined int64) string {
	s := fmt.Sprintf("%s: %s", c.Arrangement, c.Description)
	if c.Layout != "" {
		s += ", " + c.Layout
	}
	return s + fmt.Sprintf(" (%s of %d elements match)", percent(c.Fraction), examined)
}

// fmtFloat prints a value briefly: 1.25, 3e+38, NaN.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
