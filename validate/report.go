package validate

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/tpu"
)

// Float is a float64 that JSON prints as a number when finite, else as "NaN", "+Inf"
// or "-Inf".
type Float float64

// MarshalJSON implements [json.Marshaler].
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return json.Marshal(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return json.Marshal(v)
}

// Mismatch is one listed mismatching element.
type Mismatch struct {
	Index      []int64 `json:"index"`
	ByteOffset int64   `json:"byte_offset"`
	// Tile is the memory tile holding the element; Vreg, Sublane, Lane and Slot its
	// place in the vregs a load fills (nil when the layout is not loadable).
	Tile         []int64 `json:"tile,omitempty"`
	Vreg         []int64 `json:"vreg,omitempty"`
	Sublane      *int    `json:"sublane,omitempty"`
	Lane         *int    `json:"lane,omitempty"`
	Slot         *int    `json:"slot,omitempty"`
	Expected     Float   `json:"expected"`
	Actual       Float   `json:"actual"`
	ExpectedBits string  `json:"expected_bits"` // the reference converted to the dump's type
	ActualBits   string  `json:"actual_bits"`
	RefBits      string  `json:"ref_bits"` // as stored in the reference
	ULP          uint64  `json:"ulp"`
}

// PaddingMismatch is one non-zero padding element.
type PaddingMismatch struct {
	Offset     int64  `json:"offset"` // in elements of the footprint
	ByteOffset int64  `json:"byte_offset"`
	Bits       string `json:"bits"`
}

// Report is what [Compare] finds. Dump and Ref name the files for the report when the
// caller sets them; Compare leaves them empty.
type Report struct {
	OK           bool      `json:"ok"`
	Dump         string    `json:"dump,omitempty"`
	Layout       string    `json:"layout"`
	DumpBytes    int64     `json:"dump_bytes"`
	Ref          string    `json:"ref,omitempty"`
	RefShape     string    `json:"ref_shape"`
	CompareDType string    `json:"compare_dtype"`
	Tolerance    Tolerance `json:"tolerance"`
	Elements     int64     `json:"elements"`
	Identical    int64     `json:"identical"`
	Within       int64     `json:"within_tolerance"`
	Mismatches   int64     `json:"mismatches"`
	// NaNMismatches are the mismatches of a NaN against a number; NaNBitsDiffer the
	// elements NaN on both sides with other bits (they match).
	NaNMismatches int64 `json:"nan_mismatches,omitempty"`
	NaNBitsDiffer int64 `json:"nan_bits_differ,omitempty"`
	// SignedZeros are the elements that differ only in the sign of a zero (-0 against
	// +0): mismatches unless a tolerance admits them, with an error of 0.
	SignedZeros int64 `json:"signed_zeros,omitempty"`
	Fraction    Float `json:"mismatch_fraction"`
	// MaxAbs is the largest |actual-expected| (NaN when a NaN meets a number); MaxULP
	// the largest distance in units in the last place of the compared type, or for an
	// integer type the largest integer difference.
	MaxAbs Float  `json:"max_abs_error"`
	MaxULP uint64 `json:"max_ulp_error"`
	// Rounding is the ulp profile of the float errors, naming truncation when they are
	// all 1 ulp toward zero ("" without float errors, or with errors of many ulps).
	Rounding string `json:"rounding,omitempty"`
	// First lists the first mismatches in row-major order.
	First           []Mismatch        `json:"first"`
	PaddingChecked  bool              `json:"padding_checked"`
	PaddingElements int64             `json:"padding_elements"`
	PaddingMismatch int64             `json:"padding_mismatches"`
	FirstPadding    []PaddingMismatch `json:"first_padding"`
	Loadable        bool              `json:"loadable"`
	NotLoadable     string            `json:"not_loadable,omitempty"`
	Generation      string            `json:"generation"`
	VregLayout      string            `json:"vreg_layout,omitempty"`
	// Diagnosis is nil when every element matches; DiagnosisProblem says why there is
	// none when elements differ.
	Diagnosis        *tpu.Diagnosis `json:"diagnosis"`
	DiagnosisProblem string         `json:"diagnosis_error,omitempty"`

	isFloat   bool    // the compared type is a float type
	finiteAbs float64 // MaxAbs over the errors that are numbers
}

// String is the human report: the dump and reference, how they were compared, the
// counts, the first mismatches in a table and the diagnosis. The table gives each
// element's logical index as (i,j), its byte offset in the dump, its memory tile and
// vreg as (row,column) of tiles, the sublane, lane and slot (the element's place in a
// 32-bit vreg word, 0 in the low bits), and the expected and actual values with their
// bits in parentheses.
func (r *Report) String() string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

func (r *Report) write(w *strings.Builder) {
	r.writeInputs(w)
	r.writeElements(w)
	r.writeNotes(w)
	if r.OK {
		fmt.Fprintln(w, "result:   OK")
		return
	}
	fmt.Fprintln(w, "result:   MISMATCH")
	r.writeMismatches(w)
	r.writeDiagnosis(w)
}

// writeInputs writes the lines that say what was compared: the dump, the reference
// and how the dump's layout loads into vregs.
func (r *Report) writeInputs(w *strings.Builder) {
	named := func(name, rest string) string {
		if name == "" {
			return rest
		}
		return name + ", " + rest
	}
	fmt.Fprintf(w, "dump:     %s\n", named(r.Dump, fmt.Sprintf("%s, %s", r.Layout, plural(r.DumpBytes, "byte"))))
	cmp := "exact"
	if t := r.Tolerance.String(); t != "" {
		cmp = "tolerance " + t
	}
	fmt.Fprintf(w, "ref:      %s\n", named(r.Ref, fmt.Sprintf("%s, compared in %s, %s", r.RefShape, r.CompareDType, cmp)))
	if r.Loadable {
		fmt.Fprintf(w, "vregs:    %s on %s\n", r.VregLayout, r.Generation)
	} else {
		fmt.Fprintf(w, "vregs:    none: %s\n", r.NotLoadable)
	}
}

// writeElements writes the line that counts the elements that match or differ, with
// the largest error.
func (r *Report) writeElements(w *strings.Builder) {
	switch {
	case r.Mismatches == 0:
		fmt.Fprintf(w, "elements: all %d match", r.Elements)
		if r.Within > 0 {
			fmt.Fprintf(w, " (%d within tolerance, not identical)", r.Within)
		}
		fmt.Fprintln(w)
	default:
		fmt.Fprintf(w, "elements: %d of %d differ (%s)", r.Mismatches, r.Elements, Percent(float64(r.Fraction)))
		if r.Within > 0 {
			fmt.Fprintf(w, ", %d more within tolerance", r.Within)
		}
		switch {
		case r.Mismatches+r.Within == r.NaNMismatches+r.SignedZeros:
			// No error that is a nonzero number: "largest error 0" would say nothing.
		case !r.isFloat:
			fmt.Fprintf(w, "; largest difference %s", fmtFloat(r.finiteAbs))
		default:
			fmt.Fprintf(w, "; largest error %s (%d ulp)", fmtFloat(r.finiteAbs), r.MaxULP)
		}
		if r.NaNMismatches > 0 {
			fmt.Fprintf(w, "; %d NaN against a number", r.NaNMismatches)
		}
		if r.SignedZeros > 0 {
			fmt.Fprintf(w, "; %d only in the sign of zero (-0 against +0)", r.SignedZeros)
		}
		fmt.Fprintln(w)
	}
}

// writeNotes writes the lines, each present only when there is something to say, on
// rounding, NaN bits and padding.
func (r *Report) writeNotes(w *strings.Builder) {
	if r.Rounding != "" {
		fmt.Fprintf(w, "rounding: %s\n", r.Rounding)
	}
	if r.NaNBitsDiffer > 0 {
		fmt.Fprintf(w, "nans:     %d NaNs have other bits than the reference converted (another NaN canonicalisation); NaNs match NaNs\n", r.NaNBitsDiffer)
	}
	if r.PaddingChecked {
		if r.PaddingMismatch == 0 {
			fmt.Fprintf(w, "padding:  all %d padding elements are zero\n", r.PaddingElements)
		} else {
			fmt.Fprintf(w, "padding:  %d of %d padding elements are not zero; first at byte %d (%s)\n",
				r.PaddingMismatch, r.PaddingElements, r.FirstPadding[0].ByteOffset, r.FirstPadding[0].Bits)
		}
	}
}

// writeMismatches writes the table of the first mismatches with their places.
func (r *Report) writeMismatches(w *strings.Builder) {
	if len(r.First) == 0 {
		return
	}
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
			tile = joinDims("(", e.Tile, ")")
		}
		if e.Vreg != nil {
			vreg = joinDims("(", e.Vreg, ")")
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s (%s)\t%s (%s)\t\n", joinDims("(", e.Index, ")"), e.ByteOffset, tile, vreg,
			opt(e.Sublane), opt(e.Lane), opt(e.Slot),
			fmtFloat(float64(e.Expected)), e.ExpectedBits, fmtFloat(float64(e.Actual)), e.ActualBits)
	}
	tw.Flush()
}

// writeDiagnosis writes which arrangement of the elements explains the dump best, or
// why there is no diagnosis.
func (r *Report) writeDiagnosis(w *strings.Builder) {
	switch {
	case r.Diagnosis != nil:
		d := r.Diagnosis
		switch {
		case d.Best.Matched == 0 && len(d.Tied) == 0:
			fmt.Fprintf(w, "\ndiagnosis: %s\n", d)
		case len(d.Tied) > 0:
			fmt.Fprintf(w, "\ndiagnosis: none named: %d arrangements explain equally many elements\n", len(d.Tied))
			for _, c := range d.Tied {
				fmt.Fprintf(w, "  %s\n", diagnosisLine(c, d.Examined))
			}
			fmt.Fprintf(w, "declared:  %s\n", diagnosisLine(d.Best, d.Examined))
		default:
			fmt.Fprintf(w, "\ndiagnosis: %s\n", diagnosisLine(d.Best, d.Examined))
		}
		var others []tpu.Candidate
		for _, c := range d.Candidates {
			if c != d.Best && c.Matched > 0 && len(others) < 4 {
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
}

// Summary is the one-line verdict: "" when the dump matches, else what differs and,
// when the diagnosis names one, the arrangement the dump seems to hold.
func (r *Report) Summary() string {
	if r.OK {
		return ""
	}
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
	return msg
}

// diagnosisLine describes one candidate arrangement.
func diagnosisLine(c tpu.Candidate, examined int64) string {
	s := fmt.Sprintf("%s: %s", c.Arrangement, c.Description)
	if c.Layout != "" {
		s += ", " + c.Layout
	}
	return s + fmt.Sprintf(" (%s of %d elements match)", Percent(c.Fraction), examined)
}

// Percent prints a fraction as a percentage that is 0% or 100% only when exact
// ("0.0004%" for 1/262144); it is [tpu.Percent].
func Percent(f float64) string { return tpu.Percent(f) }

// fmtFloat prints a value briefly: 1.25, 3e+38, NaN.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// joinDims prints an index or dims between open and close: (2,3), [4,5].
func joinDims(open string, d []int64, close string) string {
	var b strings.Builder
	b.WriteString(open)
	for i, v := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return b.String() + close
}
