// Package shardtext words package sharding's errors as tpulayout's command line
// prints them, for the command and for the Python package, which raises what the
// command prints: the fields named by the caller's words, the library packages'
// "NAME: " prefixes dropped, and for a read of a path or URL that the message names
// (ConvertError.Name) each store.Error quoted by its fields: its name and cause, and
// the cause alone where the name is the message's.
package shardtext

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/tpulayout/tpulayout/internal/edgetext"
	"github.com/tpulayout/tpulayout/internal/errtext"
	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/store"
)

// Text is err, an error of package sharding, with each field named by name.
func Text(err error, name func(field string) string) string {
	return edgetext.Within(err, text(err, name), name)
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
		reason = storeWords(ce.Err, reason, ce.Name)
	}
	if msg == "" {
		return reason
	}
	return stripPrefixes(msg) + ": " + reason
}

// storeWords is text, a message that quotes err's chain, with each store.Error of
// the chain quoted as its Name and cause without the store's prefix, and the one
// that err is, when it is on the object the message names (name), as its cause alone.
func storeWords(err error, text, name string) string {
	walk(err, func(e error) {
		se, ok := e.(*store.Error)
		if !ok {
			return
		}
		ours := stripPrefixes(se.Err.Error())
		if se.Name != "" && (e != err || se.Name != name) {
			ours = se.Name + ": " + ours
		}
		text = strings.Replace(text, stripPrefixes(se.Error()), ours, 1)
	})
	return text
}

// walk calls f on err and on every error that it wraps, outer ones first.
func walk(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, f)
		}
	}
}

// fileCause is a failed file operation as a message that names the file quotes it:
// what failed, without Go's "open PATH:".
func fileCause(c error, name func(field string) string) string {
	var pe *fs.PathError
	if errors.As(c, &pe) {
		return pe.Err.Error()
	}
	if _, ok := c.(errtext.Worded); ok {
		return edgetext.Text(c, name)
	}
	return edgetext.Clean(c)
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
	return strings.ReplaceAll(edgetext.Clean(errors.New(s)), "sharding: ", "")
}
