package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// epipeWriter fails as os.Stdout does when its pipe's reader has gone.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// A write's EPIPE that wins the race with the SIGPIPE handler still exits 141 silently,
// as README promises ("tpulayout info 'f32[3,5]' | (exec 0<&-; sleep 1)" once exited 2
// with "write /dev/stdout: broken pipe" about half the time).
func TestBrokenPipeIsSilent141(t *testing.T) {
	var stderr strings.Builder
	code := run([]string{"info", "f32[3,5]"}, epipeWriter{}, &stderr)
	if code != exitBrokenPipe || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want %d and nothing", code, stderr.String(), exitBrokenPipe)
	}
}
