package main

import (
	"errors"

	"github.com/tpulayout/tpulayout/convert"
)

// checkStdoutOut refuses OUT "-" or /dev/stdout when standard output was closed
// (see stdoutReplaced): the output would be discarded, and the run would exit 0.
func checkStdoutOut(out string) error {
	if !convert.IsStdout(out) || !stdoutReplaced() {
		return nil
	}
	return errors.New("standard output is closed, so OUT " + out + " would be discarded: redirect it to a file (or to /dev/null with > /dev/null to discard it)")
}
