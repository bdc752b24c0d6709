package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/cmd/internal/flagtext"
	"github.com/tpulayout/tpulayout/tpu"
)

// helpWidth is the most columns a line of help takes (a tab counts to the next
// multiple of 8).
const helpWidth = 80

// verbGroup is a job and the verbs that do it, for the usage's verb list.
type verbGroup struct {
	title string
	verbs []string
	other string // a line for what is not a verb of this command (relayout-bench)
}

// verbGroups lists every verb of [verbs] once, by job, in the order help shows them.
var verbGroups = []verbGroup{
	{title: "Convert and shard", verbs: []string{"convert", "place", "gather", "manifest"}},
	{title: "Validate", verbs: []string{"validate", "verify"}},
	{title: "Inspect layouts", verbs: []string{"info", "explain", "show", "hlo", "blockspec"}},
	{title: "Layout algebra", verbs: []string{"cute", "whereis", "equal", "copymap", "blocks", "padding"}},
	{title: "Benchmark", other: "relayout-bench, a separate command (go install ./cmd/relayout-bench), " +
		"times each relayout beside a plain copy; relayout-bench --help lists its flags"},
	{title: "Set up", verbs: []string{"example", "completion", "version", "help"}},
}

const helpLead = `tpulayout converts arrays between host files and TPU device layouts: a .npy or
.safetensors array into the device image that an XLA tiled layout such as
'bf16[256,1024]{1,0:T(8,128)(2,1)}' gives it, and back; and a checkpoint (a
.safetensors file or a sharded checkpoint's model.safetensors.index.json, on disk
or in s3:// or gs://) sharded over a device mesh into one image per device, as
jax.device_put places it. It validates device dumps against reference arrays and
explains where each element of a layout lives.`

// synopses are v's usage lines, without "tpulayout ".
func (v *verb) synopses() []string {
	out := []string{strings.TrimSpace(v.name + " " + v.synopsis)}
	for _, s := range v.more {
		out = append(out, v.name+" "+s)
	}
	return out
}

// printUsage is `tpulayout help`: what the command is for, then every verb by job
// with its usage lines and summary, then what holds for all verbs.
func printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage: tpulayout VERB [ARGUMENTS] [flags]\n", wrapText(helpLead, helpWidth))
	for _, g := range verbGroups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		if g.other != "" {
			fmt.Fprintf(w, "%s\n", indentText(g.other, "  ", "  "))
		}
		for _, name := range g.verbs {
			syn, summary := []string{"help [VERB]"}, "print this help, or a verb's"
			if v := lookupVerb(name); v != nil {
				syn, summary = v.synopses(), v.summary
			}
			for _, s := range syn {
				fmt.Fprintf(w, "  tpulayout %s\n", s)
			}
			fmt.Fprintf(w, "%s\n", indentText(summary, "      ", "      "))
		}
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(fmt.Sprintf(`Quote SHAPE for the shell. Flags may come before or after the arguments.
TPU generations (tpu:GEN, --gen GEN): %s.

Exit status: 0 on success, 1 when validate finds mismatches, blockspec an illegal
block, equal a difference or blocks a misaligned block, 2 on bad usage or input, 130 when interrupted (SIGINT, SIGTERM,
SIGHUP or SIGQUIT), 141 on a broken pipe; temporary output is removed first.`, tpu.GenerationNames()), helpWidth))
}

// printShortUsage is what a bare `tpulayout` prints: the verbs by job, one line each.
func printShortUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: tpulayout VERB [ARGUMENTS] [flags]\n\n")
	width := 0
	for _, g := range verbGroups {
		width = max(width, len(g.title)+1)
	}
	for _, g := range verbGroups {
		text := strings.Join(g.verbs, ", ")
		if g.other != "" {
			text = "relayout-bench (a separate command)"
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, g.title+":", text)
	}
	fmt.Fprintf(w, "\nRun 'tpulayout help' for what each verb does, 'tpulayout help VERB' for more.\n")
}

// wrapText fills each paragraph of s (lines that do not start with a space) to width
// columns; a line that starts with a space (a table, an example) is kept as it is.
func wrapText(s string, width int) string {
	var out, para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, flagtext.Fill(strings.Join(para, " "), width, "", "")...)
			para = nil
		}
	}
	for _, line := range strings.Split(s, "\n") {
		switch {
		case line == "":
			flush()
			out = append(out, "")
		case line[0] == ' ' || line[0] == '\t':
			flush()
			out = append(out, line)
		default:
			para = append(para, strings.TrimSpace(line))
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// indentText fills s to helpWidth, its first line after first and the others after
// rest.
func indentText(s, first, rest string) string {
	return strings.Join(flagtext.Fill(s, helpWidth, first, rest), "\n")
}
