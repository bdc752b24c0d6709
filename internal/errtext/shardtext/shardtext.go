// Package shardtext words package sharding's errors as tpulayout's command line
// prints them, for the command and for the Python package, which raises what the
// command prints: the fields named by the caller's words, the library packages'
// "NAME: " prefixes dropped, and for a read of a path or URL that the message names
// (ConvertError.Name) the store's prefix and the name not repeated in the cause.
package shardtext

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/tpulayout/tpulayout/internal/errtext"
	"github.com/tpulayout/tpulayout/sharding"
)

// Text is err, an error of package sharding, with each field named by name.
func Text(err error, name func(field string) string) string {
	return errtext.Within(err, text(err, name), name)
}

func text(err error, name func(field string) string) string {
	var ce *sharding.ConvertError
	if !errors.As(err, &ce) {
		return stripPrefixes(err.Error())
	}
	msg := ce.Text(name, func(c error) string { return fileCause(c, name) })
	if ce.Err == nil {
		return stripPrefixes(msg)
	}
	reason := stripPrefixes(causeWords(ce.Err, name))
	if ce.Name != "" {
		reason = strings.ReplaceAll(strings.TrimPrefix(reason, "store: "+ce.Name+": "), "store: ", "")
	}
	if msg == "" {
		return reason
	}
	return stripPrefixes(msg) + ": " + reason
}

// fileCause is a failed file operation as a message that names the file quotes it:
// what failed, without Go's "open PATH:".
func fileCause(c error, name func(field string) string) string {
	var pe *fs.PathError
	if errors.As(c, &pe) {
		return pe.Err.Error()
	}
	if _, ok := c.(errtext.Worded); ok {
		return errtext.Text(c, name)
	}
	return errtext.Clean(c)
}

// causeWords is err's text with its fields named by name, where err is Worded.
func causeWords(err error, name func(field string) string) string {
	if w, ok := err.(errtext.Worded); ok && name != nil {
		return w.Words(name, nil)
	}
	return err.Error()
}

// stripPrefixes drops the library packages' "NAME: " prefixes where a message or a
// wrapped one starts.
func stripPrefixes(s string) string {
	return strings.ReplaceAll(errtext.Clean(errors.New(s)), "sharding: ", "")
}
