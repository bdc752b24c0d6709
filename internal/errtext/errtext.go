// Package errtext words the libraries' errors as tpulayout's command line and its
// Python package print them: a library error names the fields of its settings and
// keeps its causes as values, and a caller at the edge names the fields in its own
// words (flags, keyword arguments) and quotes each cause without the prefixes that
// the message around it makes redundant.
package errtext

import (
	"errors"
	"fmt"
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

// Fill is fmt.Sprintf(format, args...) for a message that names fields: each {Field}
// of format for which isField holds becomes name(Field) (nil name: Field itself), and
// each error among args becomes cause(err) (nil cause: err.Error()).
func Fill(format string, args []any, isField func(string) bool, name func(string) string, cause func(error) string) string {
	if name == nil {
		name = func(f string) string { return f }
	}
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		if err, ok := a.(error); ok {
			if cause != nil {
				out[i] = cause(err)
			} else {
				out[i] = err.Error()
			}
		}
	}
	return fmt.Sprintf(fieldWords(format, isField, name), out...)
}

// FirstField is the first {Field} of format for which isField holds, or "".
func FirstField(format string, isField func(string) bool) string {
	for s := format; ; {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return ""
		}
		if f := s[i+1 : i+j]; isField(f) {
			return f
		}
		s = s[i+1:]
	}
}

// fieldWords replaces each {Field} of format for which isField holds with name(Field).
func fieldWords(format string, isField func(string) bool, name func(string) string) string {
	if !strings.Contains(format, "{") {
		return format
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(format, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(format[i:], '}')
		if j < 0 {
			break
		}
		f := format[i+1 : i+j]
		if !isField(f) {
			b.WriteString(format[:i+1])
			format = format[i+1:]
			continue
		}
		b.WriteString(format[:i])
		b.WriteString(name(f))
		format = format[i+j+1:]
	}
	b.WriteString(format)
	return b.String()
}
