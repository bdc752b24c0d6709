// Package edgetext is the wording of tpulayout's command (cmd/tpulayout) and its
// Python package (python/capi), which raises what the command prints: it names the
// fields of the libraries' Worded errors (package internal/errtext) in the caller's
// words (flags, keyword arguments) and quotes each cause without what the message
// around it makes redundant, rewriting the text of the libraries' errors where it
// must: their package prefixes ("layout: ", …) and a file's name the message gives.
// It rewrites text, which no library does: only cmd/ and python/ import it
// (internal/houserules checks).
package edgetext

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"

	"github.com/tpulayout/tpulayout/internal/errtext"
)

// Text is err in the caller's words: a Worded err (or one that wraps a Worded error
// with no words of its own) names its fields through name (nil: by the fields' own
// names) and quotes its causes by [Cause]; any other err is its Error().
func Text(err error, name func(field string) string) string {
	if w, ok := err.(errtext.Worded); ok {
		return w.Words(name, func(c error) string { return Cause(c, name) })
	}
	return err.Error()
}

// Cause is how a message quotes its cause c: a Worded one by [Text]; a failed file
// operation by what failed, without the operation and the path ("no such file or
// directory"), since the message names the file; any other by [Clean].
func Cause(c error, name func(field string) string) string {
	if _, ok := c.(errtext.Worded); ok {
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
	for _, p := range []string{"buffer: ", "npy: ", "safetensors: ", "relayout: ", "tpu: ", "layout: ", "report: ", "hlo: ", "validate: "} {
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
