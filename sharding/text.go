package sharding

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/report"
)

// WriteText prints the summary as `tpulayout convert --mesh` does: per tensor its
// name, spec, layout and number of shard files, then where the manifest is.
func (s *ConvertSummary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range s.Tensors {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", convert.NameText(t.Name), t.Spec, t.Layout, report.Plural(int64(t.Shards), "shard"))
	}
	fmt.Fprintf(tw, "manifest\t\t\t%s\n", s.ManifestPath)
	return tw.Flush()
}

// WriteText prints the report as `tpulayout verify` does: a FAIL line per problem,
// what was checked against source (the checkpoint compared with; "" for the
// manifest's), and "result: OK" when nothing is wrong.
func (r *Report) WriteText(w io.Writer, source string) error {
	for _, p := range r.Problems {
		fmt.Fprintf(w, "FAIL  %s\n", p)
	}
	if source == "" {
		source = r.Manifest.Source
	}
	_, err := fmt.Fprintf(w, "%s, %s, %s on %s checked against %s\n", report.Plural(int64(r.Tensors), "tensor"),
		report.Plural(int64(r.Shards), "shard file"), convert.SizeText(r.Bytes), report.Plural(int64(len(r.Manifest.Devices)), "device"), source)
	if err == nil && len(r.Problems) == 0 {
		_, err = fmt.Fprintln(w, "result: OK")
	}
	return err
}

// GuessLine is the note on the tensors whose tpu:GEN default layout is a guess (see
// Guessed), or "" when none is; hint is how to take the layouts from the program.
func (c *Conversion) GuessLine(hint string) string {
	g := convert.Guesses{To: c.opt.To}
	for _, x := range c.guessed {
		g.AddWhy(x.Tensor, x.Layout, x.Why)
	}
	return g.Line(c.count, hint)
}
