package main

import (
	"os"
	"testing"
)

// TestTextInputLimits: a text input read whole grew without bound on /dev/zero
// (hlo, info 'hlo:…'); each is refused at its first byte, a NUL no text file holds.
func TestTextInputLimits(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	wantUsageError(t, []string{"hlo", "/dev/zero"}, "MODULE /dev/zero", "byte 0 is NUL: it is not a text file")
	wantUsageError(t, []string{"info", "hlo:/dev/zero:param=0"}, "MODULE /dev/zero", "byte 0 is NUL")
}
