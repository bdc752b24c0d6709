package main

import (
	"errors"
	"io/fs"
	"strings"
)

// fileErr describes a failed file operation without Go's "open PATH:" prefix.
func fileErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return cleanErr(err)
}

// cleanErr prints an error of the library packages without their package prefixes.
func cleanErr(err error) string {
	s := err.Error()
	// Only where a package prefix starts a message (the start, or after ": ", "; " or
	// "("): "layout: " inside a sentence ("has no TPU vreg layout: …") is a word.
	for _, p := range []string{"buffer: ", "relayout: ", "tpu: ", "layout: "} {
		s = strings.TrimPrefix(s, p)
		for _, b := range []string{": ", "; ", "("} {
			s = strings.ReplaceAll(s, b+p, b)
		}
	}
	return s
}
