package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Flags are written --name in help and messages, as the tpulayout command writes its
// own; the flag package accepts -name and --name alike.

// printFlags lists fs's flags as "  --name VALUE" with the usage on the next line, the
// layout of flag.PrintDefaults with two dashes.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if def := f.DefValue; def != "" && def != "false" {
			if isStringFlag(f) {
				usage += fmt.Sprintf(" (default %q)", def)
			} else {
				usage += fmt.Sprintf(" (default %s)", def)
			}
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// isStringFlag reports whether f holds a string, whose default is printed quoted.
func isStringFlag(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(string)
	return ok
}

// flagError rewrites the flag package's parse errors, which name flags with one dash,
// into the --name style.
func flagError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return usagef("unknown flag --%s", strings.TrimPrefix(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usagef("flag --%s needs an argument", strings.TrimPrefix(name, "-"))
	}
	// "invalid value "x" for flag -n: …", "invalid boolean value "x" for -n: …"
	msg = strings.Replace(msg, " for flag -", " for flag --", 1)
	msg = strings.Replace(msg, " for -", " for --", 1)
	return usagef("%s", msg)
}
