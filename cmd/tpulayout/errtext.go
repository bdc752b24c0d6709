package main

import (
	"errors"
	"io/fs"
	"regexp"

	"github.com/tpulayout/tpulayout/report"
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
	s := report.ErrorText(err)
	return unknownSafeDType.ReplaceAllString(s, "tensor $1 has dtype $2, which tpulayout does not support")
}

// unknownSafeDType matches the safetensors reader's error for a dtype with no element
// type here, which reads as fragments ("unsupported element type: tensor "i4": dtype
// "I4"") once the "safetensors: " prefix is gone.
var unknownSafeDType = regexp.MustCompile(`unsupported element type: tensor ("(?:[^"\\]|\\.)*"): dtype ("(?:[^"\\]|\\.)*")`)
