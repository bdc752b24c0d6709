package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
)

// runMainEnv set to 1 makes this test binary the command itself, so that a test (or a
// scenario of TestScript) runs it as a child process that signals reach, with exit
// statuses and standard streams of its own.
const runMainEnv = "TPULAYOUT_RUN_MAIN"

// The limits a scenario may set for the command it runs (testdata/script), each a
// number of bytes, or "unknown" for the two the system reports (empty is unset):
//
//	TPULAYOUT_TEST_BAND_BYTES   convert band by band in bands of about N bytes, and map
//	                            every input
//	TPULAYOUT_TEST_MEMORY       the memory available
//	TPULAYOUT_TEST_FREE_DISK    the free disk space
//	TPULAYOUT_TEST_SPARSE_MIN   the smallest OUT written around its padding
const (
	bandBytesEnv = "TPULAYOUT_TEST_BAND_BYTES"
	memoryEnv    = "TPULAYOUT_TEST_MEMORY"
	freeDiskEnv  = "TPULAYOUT_TEST_FREE_DISK"
	sparseMinEnv = "TPULAYOUT_TEST_SPARSE_MIN"
)

// child is the command run as a child process of this test binary, what it writes to
// standard error kept.
type child struct {
	*exec.Cmd
	stderr bytes.Buffer
}

// newChild is the command with args, to run as a child process.
func newChild(args ...string) *child {
	c := &child{Cmd: exec.Command(os.Args[0], args...)}
	c.Env = append(os.Environ(), runMainEnv+"=1")
	c.Stderr = &c.stderr
	return c
}

// startChild starts the command with args as a child process.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	c := newChild(args...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// await polls ready every poll until it holds; past limit it kills the child and
// fails the test, naming what it waited for, with the child's stderr.
func (c *child) await(t *testing.T, what string, limit, poll time.Duration, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ready() {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("no %s after %v; stderr: %s", what, limit, c.stderr.String())
		}
		time.Sleep(poll)
	}
}

// stop sends sig to the child and waits for it to end; it fails the test unless the
// child ended in error (it did not finish first), whose exit it returns.
func (c *child) stop(t *testing.T, sig os.Signal) *exec.ExitError {
	t.Helper()
	c.Process.Signal(sig)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child finished before %v (err %v); make the input larger", sig, err)
	}
	return exit
}

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		if err := setTestLimits(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		main()
	}
	os.Exit(m.Run())
}

// setTestLimits applies the limits a scenario set in the environment.
func setTestLimits() error {
	for _, l := range []struct {
		env  string
		set  func(int64)
		size func(int64, bool)
	}{
		{env: bandBytesEnv, set: func(n int64) { bandBytes, buffer.MmapThreshold = n, 0 }},
		{env: sparseMinEnv, set: func(n int64) { sparseMinBytes = n }},
		{env: memoryEnv, size: func(n int64, ok bool) { availableMemory = func() (int64, bool) { return n, ok } }},
		{env: freeDiskEnv, size: func(n int64, ok bool) { freeDiskSpace = func(string) (int64, bool) { return n, ok } }},
	} {
		v := os.Getenv(l.env)
		if v == "" {
			continue
		}
		if v == "unknown" && l.size != nil {
			l.size(0, false)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %v", l.env, err)
		}
		if l.set != nil {
			l.set(n)
		} else {
			l.size(n, true)
		}
	}
	return nil
}
