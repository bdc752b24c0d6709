package main

import (
	"flag"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/cmd/internal/flagtext"
)

// Flags are written --name everywhere people read them (help, errors, the README), as
// the prose writes them; the flag package accepts -name and --name alike.

// printFlags lists fs's flags, their usage filled to helpWidth (see flagtext.Print).
func printFlags(w io.Writer, fs *flag.FlagSet) { flagtext.Print(w, fs, helpWidth) }

// flagError rewrites the flag package's parse errors, which name flags with one dash,
// into the prose's style, and suggests the nearest flag for an unknown one.
func flagError(fs *flag.FlagSet, msg string) error {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok && name != "" && name[0] >= '0' && name[0] <= '9' {
		return usagef("%q is not a flag, and coordinates and offsets cannot be negative", "-"+name)
	}
	return usagef("%s", flagtext.Message(msg, flagtext.Names(fs)))
}
