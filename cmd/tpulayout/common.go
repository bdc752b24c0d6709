package main

import (
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// needArgs checks the count of positional arguments; names lists them for the message.
func needArgs(pos []string, names ...string) error {
	if len(pos) < len(names) {
		return usagef("missing %s", strings.Join(names[len(pos):], " and "))
	}
	if len(pos) > len(names) {
		return usagef("unexpected argument %q", layout.Quote(pos[len(names)]))
	}
	return nil
}

// writeJSON prints v as the reports do (see report.JSON).
func writeJSON(w io.Writer, v any) error {
	b, err := report.JSON(v)
	if err == nil {
		_, err = w.Write(b)
	}
	return err
}
