package main

import (
	"github.com/tpulayout/tpulayout/internal/errtext"
)

// Python's words for the libraries' errors. A library error names the fields of its
// settings ("Pad"); here, once, they get the names of the Python arguments that set
// them. A new argument that a library's error may name is one entry in pyWords.

// pyWords maps a field of a library's settings to the Python argument that sets it.
var pyWords = map[string]string{
	"Pad": "pad",
	// report's settings and arguments (report.Settings), as the command names them
	"To": "--to", "Gen": "--gen", "Words": "--words", "Byte": "--byte", "Element": "--element",
	"Block": "--block", "Src": "SRC", "Dst": "DST", "Shape": "SHAPE",
	// sharding/manifest's errors, and convert's word for where buckets are taken
	// (a conversion with a mesh), as the command names them
	"Process": "--process", "Mesh": "--mesh",
}

func pyWord(field string) string {
	if w, ok := pyWords[field]; ok {
		return w
	}
	return field
}

// pyText is err in Python's words.
func pyText(err error) string { return errtext.Text(err, pyWord) }

// pyError is a library error in Python's words.
type pyError struct{ err error }

func (e pyError) Error() string { return pyText(e.err) }
func (e pyError) Unwrap() error { return e.err }

// cliWords are the command line's words for the fields of sharding's options: the
// sharded conversion's errors read in Python as the command prints them.
var cliWords = map[string]string{
	"In": "IN", "Out": "OUT", "Mesh": "--mesh", "Devices": "--devices", "Spec": "--spec", "Rules": "--rules", "To": "--to",
	"DType": "--dtype", "Tensor": "--tensor", "All": "--all", "Process": "--process", "Pad": "--pad",
	"Checksum": "--checksum", "Force": "--force",
}

func cliWord(field string) string {
	if w, ok := cliWords[field]; ok {
		return w
	}
	return field
}
