// Package errtext words the libraries' errors as tpulayout's command line and its
// Python package print them: a library error names the fields of its settings and
// keeps its causes as values, and a caller at the edge names the fields in its own
// words (flags, keyword arguments) and quotes each cause without the prefixes that
// the message around it makes redundant.
package errtext

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"
)

// Worded is an error whose sentence a caller can word: name gives the caller's word
// for a field, cause the words for a cause the sentence quotes (convert.Error and
// report.SettingError are Worded).
type Worded interface {
	error
	Words(name func(field string) string, cause func(error) string) string
}

// Text is err in the caller's words: a Worded err (or one that wraps a Worded error
// with no words of its own) names its fields through name (nil: by the fields' own
// names) and quotes its causes by [Cause]; any other err is its Error().
func Text(err error, name func(field string) string) string {
	if w, ok := err.(Worded); ok {
		return w.Words(name, func(c error) string { return Cause(c, name) })
	}
	return err.Error()
}

// Cause is how a message quotes its cause c: a Worded one by [Text]; a failed file
// operation by what failed, without the operation and the path ("no such file or
// directory"), since the message names the file; any other by [Clean].
func Cause(c error, name func(field string) string) string {
	if _, ok := c.(Worded); ok {
		return Text(c, name)
	}
	var pe *fs.PathError
	if errors.As(c, &pe) {
		return pe.Err.Error()
	}
	return Clean(c)
}

// Clean prints an error of the library packages without their package prefixes
// ("layout: ", "tpu: ", …), as messages quote errors inside their sentences. Only a
// prefix that starts a message (the start, or after ": ", "; " or "(") is removed:
// "layout: " inside a sentence ("has no TPU vreg layout: …") is a word. The safetensors
// reader's error for a dtype it has no element type for is reworded as a sentence.
func Clean(err error) string {
	s := err.Error()
	for _, p := range []string{"buffer: ", "npy: ", "safetensors: ", "relayout: ", "tpu: ", "layout: ", "report: "} {
		s = strings.TrimPrefix(s, p)
		for _, b := range []string{": ", "; ", "("} {
			s = strings.ReplaceAll(s, b+p, b)
		}
	}
	return unknownSafeDType.ReplaceAllString(s, "tensor $1 has dtype $2, which tpulayout does not support")
}

// unknownSafeDType matches the safetensors reader's error for a dtype with no element
// type here, which reads as fragments ("unsupported element type: tensor "i4": dtype
// "I4"") once the "safetensors: " prefix is gone.
var unknownSafeDType = regexp.MustCompile(`unsupported element type: tensor ("(?:[^"\\]|\\.)*"): dtype ("(?:[^"\\]|\\.)*")`)
