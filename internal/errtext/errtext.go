// Package errtext builds the libraries' messages that name fields: a library error
// names the fields of its settings as {Field} and keeps its causes as values (Fill,
// FirstField), and is Worded, so that a caller at the edge (package
// internal/edgetext) can name the fields in its own words and quote each cause its
// own way. Nothing here rewrites an error's text.
package errtext

import (
	"fmt"
	"strings"
)

// Worded is an error whose sentence a caller can word: name gives the caller's word
// for a field, cause the words for a cause the sentence quotes (convert.Error and
// report.SettingError are Worded). A nil name names a field by itself, a nil cause
// quotes a cause by its Error().
type Worded interface {
	error
	Words(name func(field string) string, cause func(error) string) string
}

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
