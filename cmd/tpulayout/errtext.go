package main

import (
	"errors"
	"io/fs"

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
func cleanErr(err error) string { return report.ErrorText(err) }
