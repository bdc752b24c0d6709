package main

import (
	"os"
	"testing"
)

// runMainEnv set to 1 makes this test binary the command itself, so that a test (or a
// scenario of TestScript) runs it as a child process that signals reach, with exit
// statuses and standard streams of its own.
const runMainEnv = "TPULAYOUT_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}
