package convert

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tpulayout/tpulayout/report"
)

// Kind is what went wrong, so that a caller can tell bad settings from bad files (a
// command line maps kinds to exit statuses; only [Usage] calls for its usage line).
type Kind int

const (
	// Input: an input cannot be read or is not what the settings say (a missing file,
	// a raw file of the wrong size, a tensor of other dims, a shape that does not parse).
	Input Kind = iota
	// Usage: settings that contradict each other or are missing (To and All together
	// with a shape, a Pad the element type cannot hold exactly, …).
	Usage
	// Output: Out cannot be written (no space, not a regular file, an I/O error).
	Output
)

func (k Kind) String() string { return [...]string{"input", "usage", "output"}[k] }

// Error is every error a Job returns: its kind and the message, which names the job's
// parts with the words of [Names].
type Error struct {
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// KindOf returns the kind of err: that of the first *Error in its chain, else Input.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Input
}

// Names are the words messages use for the job's inputs and settings. The zero value
// means [LibraryNames], the field names of Job and Check; a command line passes the
// names of its arguments and flags, so that "missing To" reads "missing --to" there.
type Names struct {
	In, Out                                        string // the files
	To, From, DType, Tensor, Pad, View, All, Force string // the settings
	Dump, Ref, Layout, RefShape                    string // a Check's
}

// LibraryNames names the fields of Job and Check.
var LibraryNames = Names{In: "In", Out: "Out", To: "To", From: "From", DType: "DType",
	Tensor: "Tensor", Pad: "Pad", View: "View", All: "All", Force: "Force",
	Dump: "Dump", Ref: "Ref", Layout: "Layout", RefShape: "RefShape"}

// FlagNames names them as tpulayout's command line does (IN, OUT, --to, …). The
// sharded conversion words its messages so too, for Go and Python callers alike.
var FlagNames = Names{In: "IN", Out: "OUT", To: "--to", From: "--from", DType: "--dtype",
	Tensor: "--tensor", Pad: "--pad", View: "--view", All: "--all", Force: "--force",
	Dump: "DUMP", Ref: "REF", Layout: "--layout", RefShape: "--ref-shape"}

func (n Names) orDefault() Names {
	if n == (Names{}) {
		return LibraryNames
	}
	return n
}

// words replaces the placeholders {in}, {out}, {to}, … of a message format with n's words.
func (n Names) words(format string) string {
	if !strings.Contains(format, "{") {
		return format
	}
	return strings.NewReplacer("{in}", n.In, "{out}", n.Out, "{to}", n.To, "{from}", n.From,
		"{dtype}", n.DType, "{tensor}", n.Tensor, "{pad}", n.Pad, "{view}", n.View,
		"{all}", n.All, "{force}", n.Force, "{dump}", n.Dump, "{ref}", n.Ref, "{layout}", n.Layout,
		"{refshape}", n.RefShape).Replace(format)
}

// errf makes an error of kind k; format's placeholders name the job's parts (see words).
func (n Names) errf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Msg: fmt.Sprintf(n.words(format), args...)}
}

// wrapf is errf keeping err's kind (Input when it has none).
func (n Names) wrapf(err error, format string, args ...any) error {
	return &Error{Kind: KindOf(err), Msg: fmt.Sprintf(n.words(format), args...)}
}

// typed returns err as an *Error: nil stays nil, an *Error anywhere in the chain
// lends its kind to the whole message.
func typed(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{Kind: KindOf(err), Msg: err.Error()}
}

// FileErr describes a failed file operation without Go's "open PATH:" prefix.
func FileErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return CleanErr(err)
}

// CleanErr prints an error of the library packages without their package prefixes.
func CleanErr(err error) string { return report.ErrorText(err) }

// usagef makes a Usage error whose message names nothing of the job's.
func usagef(format string, args ...any) error {
	return &Error{Kind: Usage, Msg: fmt.Sprintf(format, args...)}
}

// inputf makes an Input error whose message names nothing of the job's.
func inputf(format string, args ...any) error {
	return &Error{Kind: Input, Msg: fmt.Sprintf(format, args...)}
}
