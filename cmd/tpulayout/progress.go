package main

import (
	"flag"
	"io"
	"os"
)

// progressOut is where long-running verbs report progress: standard error, whatever
// writer run was given for its one-line errors (tests replace it).
var progressOut io.Writer = os.Stderr

// newProgress is the display of --progress (forced) or of a terminal stderr, or nil.
func newProgress(forced bool, label string) *termProgress {
	return newTermProgress(progressOut, label, forced)
}

// progressFlag declares --progress, as convert has it, for a verb that reads or writes
// for long.
func progressFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("progress", false, "show progress on stderr even when it is not a terminal")
}
