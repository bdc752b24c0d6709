package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// factor prints an expansion factor as "1.33x".
func factor(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) + "x" }

// WriteText prints the report as the tpulayout command's hlo does: a table of the
// arrays, totals and notes; the notes name the setting that gives default layouts
// by its field, To (see WriteWords).
func (rep *HLO) WriteText(w io.Writer) error { return rep.WriteWords(w, nil) }

// WriteWords is WriteText with the notes naming the setting To (of Settings: the
// target whose generation gives HLOOptions.Gen) by name("To"); a nil name names it To.
func (rep *HLO) WriteWords(w io.Writer, name func(field string) string) error {
	to := "To"
	if name != nil {
		to = name(to)
	}
	entry := rep.Entry
	if !rep.EntryMarked {
		entry += " (no ENTRY: the last computation, as XLA takes it)"
	}
	module := rep.Module
	if module == "" {
		module = "(no HloModule line)"
	}
	fmt.Fprintf(w, "module %s, entry computation %s\n", module, entry)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "what\tname\tshape\tlayout\tlogical B\tfootprint B\texpansion\n")
	for _, r := range rep.Rows {
		what := r.Kind
		switch {
		case r.Kind == "parameter":
			what = fmt.Sprintf("param %d%s", *r.Number, r.Index)
		case r.Kind == "result":
			what = "result " + r.Index
		default:
			what = r.Opcode + r.Index
		}
		logical, foot, exp := "-", "-", "-"
		if r.Sized {
			logical, foot = strconv.FormatInt(r.Logical, 10), strconv.FormatInt(r.Footprint, 10)
			if r.Logical > 0 {
				exp = factor(r.Expansion)
			}
		}
		lay := r.Layout
		switch {
		case r.Retiled:
			lay += " *"
		case r.NotWritten:
			lay = "shape not written"
		case r.Inferred:
			lay += " (inferred)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", what, r.Name, r.Shape, lay, logical, foot, exp)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	total := "-"
	if rep.Logical > 0 {
		total = factor(rep.Expansion)
	}
	arrays := 0
	for _, r := range rep.Rows {
		if r.Shape != "()" {
			arrays++
		}
	}
	fmt.Fprintf(w, "total: %s, %s logical, %s footprint, %s\n", Plural(int64(arrays), "array"),
		Plural(rep.Logical, "byte"), Plural(rep.Footprint, "byte"), total)
	tiled, retiled := false, false
	for _, r := range rep.Rows {
		tiled = tiled || strings.Contains(r.Layout, "T(")
		retiled = retiled || r.Retiled
	}
	if retiled {
		fmt.Fprintf(w, "*: the dump has no tiled layout here; shown with %s's default device layout\n", to)
	} else if !tiled && len(rep.Rows) > 0 {
		fmt.Fprintf(w, "note: no tiled layouts (a dump before layout assignment?); %s tpu:GEN shows a generation's defaults\n", to)
	}
	writeHeaderNotes(w, rep)
	noted := map[string]bool{}
	for _, r := range rep.Rows {
		if n := fmt.Sprintf("note: %s %s%s: %s\n", r.Name, r.Shape, r.Layout, r.Note); r.Note != "" && !noted[n] {
			fmt.Fprint(w, n)
			noted[n] = true
		}
	}
	if len(rep.Unknown) > 0 {
		fmt.Fprintf(w, "note: %s XLA does not define, read anyway: %s\n",
			Plural(int64(len(rep.Unknown)), "opcode"), strings.Join(rep.Unknown, ", "))
	}
	return nil
}

// writeHeaderNotes says that the entry rows come from the entry_computation_layout
// header, and where the body's instructions have other shapes.
func writeHeaderNotes(w io.Writer, rep *HLO) {
	var header bool
	var differ []string
	for _, r := range rep.Rows {
		header = header || r.From == "header"
		if r.Body == "" {
			continue
		}
		what := fmt.Sprintf("param %d%s %s", *r.Number, r.Index, r.Name)
		if r.Kind == "result" {
			what = fmt.Sprintf("result %s %s", r.Index, r.Name)
		}
		differ = append(differ, fmt.Sprintf("%s: %s in the body", what, r.Body))
	}
	if header {
		fmt.Fprintf(w, "entry parameters and results: the layouts of the entry_computation_layout header\n")
	}
	if rep.HeaderNote != "" {
		fmt.Fprintf(w, "note: %s\n", rep.HeaderNote)
	}
	const most = 10
	for i, d := range differ {
		if i == most {
			fmt.Fprintf(w, "note: and %d more where the body differs from the header\n", len(differ)-most)
			break
		}
		fmt.Fprintf(w, "note: header and body differ: %s\n", d)
	}
}
