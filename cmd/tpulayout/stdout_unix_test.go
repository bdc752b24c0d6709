//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// With standard output closed, OUT - fails naming why instead of exiting 0 with the
// image discarded (issue 44.10); "> /dev/null" still discards it on purpose.
func TestClosedStdout(t *testing.T) {
	in, _ := filepath.Abs(fixtures + "f32_20x300.npy")
	for _, c := range []struct {
		redirect string
		fails    bool
	}{
		{">&-", true},
		{"> /dev/null", false},
	} {
		for _, out := range []string{"-", "/dev/stdout"} {
			cmd := exec.Command("/bin/sh", "-c", `exec "$0" convert "$1" "$2" --to tpu:v5e `+c.redirect, os.Args[0], in, out)
			cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			switch {
			case c.fails && (!errors.As(err, &exit) || exit.ExitCode() != exitUsage || !strings.Contains(stderr.String(), "standard output is closed, so OUT "+out+" would be discarded")):
				t.Errorf("OUT %s %s: %v, stderr %q; want exit %d naming the closed standard output", out, c.redirect, err, stderr.String(), exitUsage)
			case !c.fails && err != nil:
				t.Errorf("OUT %s %s: %v, stderr %q", out, c.redirect, err, stderr.String())
			}
		}
	}
}
