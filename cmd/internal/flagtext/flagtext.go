// Package flagtext writes a command's flags and flag errors the way the commands' prose
// writes flags, --name with two dashes; the flag package accepts -name and --name alike
// but names them with one dash.
package flagtext

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Indent starts each line of a flag's usage, as flag.PrintDefaults indents it.
const Indent = "    \t"

// Print lists fs's flags as "  --name VALUE" with the usage on the next lines after
// Indent, the layout of flag.PrintDefaults with two dashes. A usage is filled to width
// columns (see Fill), or kept on one line when width is 0. A default of "", false, 0 or
// [] is left unsaid; a string default is quoted.
func Print(w io.Writer, fs *flag.FlagSet, width int) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if name == "value" { // a flag.Value with no `NAME` in its usage
			name = "VALUE"
		}
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			if isString(f) {
				usage += fmt.Sprintf(" (default %q)", def)
			} else {
				usage += fmt.Sprintf(" (default %s)", def)
			}
		}
		text := Indent + usage
		if width > 0 {
			text = strings.Join(Fill(usage, width, Indent, Indent), "\n")
		}
		fmt.Fprintf(w, "%s\n%s\n", line, text)
	})
}

// isString reports whether f holds a string, whose default is printed quoted.
func isString(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(string)
	return ok
}

// Message rewrites the text of one of the flag package's parse errors into the --name
// style. For an unknown flag it suggests the nearest of names (see Nearest); with no
// names it suggests none.
func Message(msg string, names []string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		if near := Nearest(name, names); near != "" {
			return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", name, near)
		}
		return "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("flag --%s needs an argument", strings.TrimPrefix(name, "-"))
	}
	// "invalid value "x" for flag -n: …", "invalid boolean value "x" for -n: …"
	msg = strings.Replace(msg, " for flag -", " for flag --", 1)
	return strings.Replace(msg, " for -", " for --", 1)
}

// Names are the names of fs's flags, in the order VisitAll gives them.
func Names(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
