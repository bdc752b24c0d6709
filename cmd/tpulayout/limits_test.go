package main

import (
	"os"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// TestTextInputLimits: a text input read whole grew without bound on /dev/zero
// (--rules, hlo, info 'hlo:…'); each stops at its documented limit with an error.
func TestTextInputLimits(t *testing.T) {
	if testing.Short() || !testenv.Long() {
		t.Skip("reads 2 × 256 MiB of /dev/zero: runs with " + testenv.LongEnv + "=1")
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	wantUsageError(t, []string{"hlo", "/dev/zero"}, "MODULE /dev/zero", "larger than the limit of 256.00 MiB")
	wantUsageError(t, []string{"info", "hlo:/dev/zero:param=0"}, "MODULE /dev/zero", "larger than the limit")
}
