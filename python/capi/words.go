package main

import (
	"github.com/tpulayout/tpulayout/internal/edgetext"
)

// Python's words for the libraries' errors. A library error names the fields of its
// settings ("Pad", "Mesh"); here, once, they get the words Python's messages name them
// by. The sharded conversion's errors read in Python as the command prints them
// (Python's tests compare the two), so its fields are named by the command's flags,
// as are report's settings; Pad alone is named by its Python argument, pad, which
// to_device and shard both take and which the command's --pad does not reach here
// (shard checks its pad as to_device does, checkPadValue). A new argument that a
// library's error may name is one entry in words.
var words = map[string]string{
	// sharding.ConvertOptions and PlaceOptions, and sharding/manifest's errors
	"In": "IN", "Out": "OUT", "Mesh": "--mesh", "Devices": "--devices", "Spec": "--spec", "Rules": "--rules", "To": "--to",
	"DType": "--dtype", "Tensor": "--tensor", "All": "--all", "Process": "--process",
	"Checksum": "--checksum", "Force": "--force",
	// report's settings and arguments (report.Settings)
	"Gen": "--gen", "Words": "--words", "Byte": "--byte", "Element": "--element",
	"Block": "--block", "Src": "SRC", "Dst": "DST", "Shape": "SHAPE",
	// to_device's and shard's pad=
	"Pad": "pad",
}

// word is Python's word for a library's field: its entry in words, else the field.
func word(field string) string {
	if w, ok := words[field]; ok {
		return w
	}
	return field
}

// pyText is err in Python's words.
func pyText(err error) string { return edgetext.Text(err, word) }

// pyError is a library error in Python's words.
type pyError struct{ err error }

func (e pyError) Error() string { return pyText(e.err) }
func (e pyError) Unwrap() error { return e.err }
