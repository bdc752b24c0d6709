package main

import (
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/edgetext"
)

// The command's words for the libraries' errors. A library error names the fields of
// its settings ("To", "In") and keeps its causes as values; here, once, the fields get
// the names of the arguments and flags that set them, and errors become the one line
// run prints. A new flag that a library's error may name is one entry in flagWords.

// flagWords maps a field of a library's settings to the argument or flag that sets it.
var flagWords = map[string]string{
	// convert.Job and convert.Check
	"In": "IN", "Out": "OUT", "To": "--to", "From": "--from", "DType": "--dtype",
	"Tensor": "--tensor", "Pad": "--pad", "View": "--view", "All": "--all", "Force": "--force",
	"Dump": "DUMP", "Ref": "REF", "Layout": "--layout", "RefShape": "--ref-shape",
	// report's settings and arguments (report.Settings)
	"Gen": "--gen", "Words": "--words", "Byte": "--byte", "Element": "--element",
	"Block": "--block", "Src": "SRC", "Dst": "DST", "Shape": "SHAPE",
	// sharding.ConvertOptions and PlaceOptions, and sharding/manifest's errors
	"Mesh": "--mesh", "Devices": "--devices", "Spec": "--spec", "Rules": "--rules",
	"Process": "--process", "Checksum": "--checksum",
}

// flagWord is the command's word for a library's field: its flag, else the field.
func flagWord(field string) string {
	if w, ok := flagWords[field]; ok {
		return w
	}
	return field
}

// errText is err in the command's words.
func errText(err error) string { return edgetext.Text(err, flagWord) }

// messageText is a library's message in the command's words.
func messageText(m convert.Message) string {
	return m.Text(flagWord, func(c error) string { return edgetext.Cause(c, flagWord) })
}
