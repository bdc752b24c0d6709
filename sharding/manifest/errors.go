package manifest

import (
	"fmt"
	"strings"
)

// FormatError is a manifest that Parse refuses: Tensor names the tensor at fault ("" for
// the manifest as a whole), Msg says what is wrong and Err, when set, why (the JSON
// decoder's or the mesh's error), printed after Msg.
type FormatError struct {
	Tensor string
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error()
}

func (e *FormatError) Unwrap() error { return e.Err }

// MergeError is a merge that the partial manifests or the files beside them refuse:
// Dir is the output merged, Partial and Tensor the partial manifest and the tensor at
// fault (either may be ""), Msg the message and Err, when set, its cause.
type MergeError struct {
	Dir, Partial, Tensor string
	Msg                  string
	Err                  error
}

func (e *MergeError) Error() string {
	if e.Err == nil {
		return "sharding: " + e.Msg
	}
	return "sharding: " + e.Msg + ": " + e.Err.Error()
}

func (e *MergeError) Unwrap() error { return e.Err }

// NoPartialsError is a merge of an output that holds no partial manifests: Merged when
// it holds manifest.json, the mark of one merged already.
type NoPartialsError struct {
	Dir    string
	Merged bool
}

func (e *NoPartialsError) Error() string { return e.Words(Label, nil) }

// Words is the error's message with the settings named by name (see Label); it makes
// the error an errtext.Worded.
func (e *NoPartialsError) Words(name func(field string) string, _ func(error) string) string {
	if e.Merged {
		return fmt.Sprintf("sharding: %s is already merged: it holds %s and no partial manifests (manifest.process-I-of-N.json)", e.Dir, FileName)
	}
	return fmt.Sprintf("sharding: %s holds no partial manifests (manifest.process-I-of-N.json, written by %s I/N)", e.Dir, name("Process"))
}

// Label names a setting of a conversion in the package's own messages: "To" as its
// manifest key "to", "Process" as "process". A command names them by its own flags
// through the errors' Words methods.
func Label(field string) string {
	switch field {
	case "To":
		return "to"
	case "Process":
		return "process"
	}
	return field
}

// Difference is one field that two manifests give differently: Field is its manifest
// key ("checksum", "dtype", …) or, for the target, the setting "To"; Theirs and Ours
// the two values as printed.
type Difference struct {
	Field        string
	Theirs, Ours string
}

// Text prints d as a merge's message says it, the field named by label (see Label).
func (d Difference) Text(label func(string) string) string {
	switch d.Field {
	case "sources":
		return fmt.Sprintf("source file %s in the first; %s in the second (the checkpoint changed between the processes)", d.Theirs, d.Ours)
	case "mesh":
		return "mesh"
	}
	return fmt.Sprintf("%s %s in the first, %s in the second", label(d.Field), d.Theirs, d.Ours)
}

// MismatchError is two partial manifests, First and Second, that describe different
// conversions, a tensor differently (Tensor set) or a shard's contents differently
// (Shard set): Diffs says how.
type MismatchError struct {
	First, Second string
	Tensor        string
	Shard         *Shard
	Diffs         []Difference
}

func (e *MismatchError) Error() string { return e.Words(Label, nil) }

// Words is the error's message with the settings named by label (see Label); it makes
// the error an errtext.Worded.
func (e *MismatchError) Words(label func(field string) string, _ func(error) string) string {
	d := make([]string, len(e.Diffs))
	for i, x := range e.Diffs {
		d[i] = x.Text(label)
	}
	diffs := strings.Join(d, "; ")
	switch {
	case e.Shard != nil:
		return fmt.Sprintf("sharding: shard %s (tensor %q, shard %v) was written with different contents by two processes, %s and %s: %s",
			e.Shard.File, e.Tensor, e.Shard.Index, e.First, e.Second, diffs)
	case e.Tensor != "":
		return fmt.Sprintf("sharding: tensor %q differs between partial manifests %s and %s: %s", e.Tensor, e.First, e.Second, diffs)
	}
	return fmt.Sprintf("sharding: %s and %s describe different conversions: %s", e.First, e.Second, diffs)
}
