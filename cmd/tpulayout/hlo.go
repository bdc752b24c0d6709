package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

var hloVerb = &verb{
	name:     "hlo",
	synopsis: "MODULE.txt [--all] [--sort padding] [flags]",
	summary:  "the entry parameters and results of an HLO dump, with sizes and padding",
	detail: `Hlo reads an HLO module text dump (as --xla_dump_to writes it, before or after
optimizations) and lists the entry computation's parameters and results (each element
of a tuple result), or with --all every instruction of every computation (tuples one
row per element), with shape, layout, logical bytes, footprint bytes and the padding
expansion factor (footprint / logical), then the totals of the rows listed. Shapes
that have no size (tokens, unbounded dims) show "-".

When the header has entry_computation_layout={(…)->…}, the entry parameters and
results are listed with its layouts (what callers pass and get back; a dump before
layout assignment holds the device layouts only there), and a note names each one
the body's instructions write differently. An instruction written without a shape
(ROOT t = tuple(p)) shows the shape XLA infers, marked (inferred), or "shape not
written" where inferring it needs semantics not modelled here (dot, reduce, …).

--sort padding lists the worst expansion first (then the most padding bytes); the
default is the order in the file. --to tpu:GEN gives arrays the dump leaves untiled
(a dump before layout assignment) the generation's default device layout, marked *. Malformed files are errors naming the line and
column; opcodes XLA does not define are listed in a note.

A parameter's or result's shape can be used wherever a shape is taken, as
hlo:MODULE.txt:param=N or hlo:MODULE.txt:result=N, with the header's layout when
it has one (say convert --to hlo:module.txt:param=0; ' {I}' after it picks element I of a tuple parameter), and a
pasted instruction line or tuple shape works too:
'%p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), ...', with ' {N}' appended to
pick element N of a tuple.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		all := fs.Bool("all", false, "list every instruction, not only the entry parameters and results")
		to := fs.String("to", "", "give untiled arrays (a dump before layout assignment) the default layout of `tpu:GEN`")
		sortBy := fs.String("sort", "file", "row `ORDER`: file or padding (worst expansion first)")
		asJSON := fs.Bool("json", false, "print JSON")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "MODULE.txt"); err != nil {
				return err
			}
			if *sortBy != "file" && *sortBy != "padding" {
				return usagef("unknown --sort %q (file or padding)", *sortBy)
			}
			m, err := readModule(pos[0])
			if err != nil {
				return err
			}
			o := report.HLOOptions{All: *all, SortByPadding: *sortBy == "padding"}
			if *to != "" {
				g, ok := strings.CutPrefix(*to, "tpu:")
				gen, err := tpu.ParseGeneration(g)
				if !ok || err != nil {
					return usagef("bad --to %q: give tpu:GEN, such as tpu:v5e", *to)
				}
				o.Retile, o.Gen = true, gen
			}
			rep := report.NewHLO(m, o)
			if *asJSON {
				return writeJSON(w, rep)
			}
			return printHLO(w, rep)
		}
	},
}

// readModule reads and parses an HLO text file.
func readModule(path string) (*hlo.Module, error) { return convert.ReadModule(path) }

// factor prints an expansion factor as "1.33x".
func factor(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) + "x" }

func printHLO(w io.Writer, rep *report.HLO) error {
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
	fmt.Fprintf(w, "total: %s, %s logical, %s footprint, %s\n", plural(int64(len(rep.Rows)), "array"),
		plural(rep.Logical, "byte"), plural(rep.Footprint, "byte"), total)
	tiled, retiled := false, false
	for _, r := range rep.Rows {
		tiled = tiled || strings.Contains(r.Layout, "T(")
		retiled = retiled || r.Retiled
	}
	if retiled {
		fmt.Fprintf(w, "*: the dump has no tiled layout here; shown with --to's default device layout\n")
	} else if !tiled && len(rep.Rows) > 0 {
		fmt.Fprintf(w, "note: no tiled layouts (a dump before layout assignment?); --to tpu:GEN shows a generation's defaults\n")
	}
	printHeaderNotes(w, rep)
	noted := map[string]bool{}
	for _, r := range rep.Rows {
		if n := fmt.Sprintf("note: %s %s%s: %s\n", r.Name, r.Shape, r.Layout, r.Note); r.Note != "" && !noted[n] {
			fmt.Fprint(w, n)
			noted[n] = true
		}
	}
	if len(rep.Unknown) > 0 {
		fmt.Fprintf(w, "note: %s XLA does not define, read anyway: %s\n",
			plural(int64(len(rep.Unknown)), "opcode"), strings.Join(rep.Unknown, ", "))
	}
	return nil
}

// printHeaderNotes says that the entry rows come from the entry_computation_layout
// header, and where the body's instructions have other shapes.
func printHeaderNotes(w io.Writer, rep *report.HLO) {
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

// parseShapeArg reads a SHAPE argument (see convert.ParseShape).
func parseShapeArg(text string) (layout.Shape, error) { return convert.ParseShape(text) }
