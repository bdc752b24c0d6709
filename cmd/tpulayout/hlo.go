package main

import (
	"flag"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/hlo"
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
that have no size (tokens, unbounded dims) show "-". MODULE - reads standard input.

When the header has entry_computation_layout={(…)->…}, the entry parameters and
results are listed with its layouts (what callers pass and get back; a dump before
layout assignment holds the device layouts only there), and a note names each one
the body's instructions write differently. An instruction written without a shape
(ROOT t = tuple(p)) shows the shape XLA infers, marked (inferred), or "shape not
written" where inferring it needs semantics not modelled here (dot, reduce, …).

--sort padding lists the worst expansion first (then the most padding bytes); the
default is the order in the file. --to tpu:GEN gives arrays the dump leaves untiled
(a dump before layout assignment) the generation's default device layout, marked *. Malformed files are errors naming the line and
column, as is what XLA's parser refuses (an undefined operand or computation, a
parameter number used twice or with a gap, text after an attribute); opcodes XLA
does not define are listed in a note. Sparse layouts are read in the newer XLA form
(D(…) with #(…), *(…)); the older form's P(…) is refused. MODULE.txt may have at most
256 MiB.

A parameter's or result's shape can be used wherever a shape is taken, as
hlo:MODULE.txt:param=N or hlo:MODULE.txt:result=N, with the header's layout when
it has one (say convert --to hlo:module.txt:param=0; ' {I}' after it picks element I of a tuple parameter), and a
pasted instruction line or tuple shape works too, with ' {N}' appended to pick
element N of a tuple:

  '%p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), ...'`,
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
			list := func(m *hlo.Module) error {
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
				return rep.WriteWords(w, flagWord)
			}
			if pos[0] != "-" {
				// The module's text is mapped while list runs, which writes the
				// report before it goes.
				return convert.WithModule(pos[0], list)
			}
			m, err := convert.ReadModuleFrom(stdin, convert.StdinName) // as convert's IN -
			if err != nil {
				return err
			}
			return list(m)
		}
	},
}
