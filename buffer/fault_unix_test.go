//go:build unix

package buffer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// TestGuardFaults: reading a mapped buffer whose file was truncated killed the process
// (SIGBUS, "fatal error: fault"); under GuardFaults it is an error naming the buffer.
func TestGuardFaults(t *testing.T) {
	saved := MmapThreshold
	defer func() { MmapThreshold = saved }()
	MmapThreshold = 1 // map the 1 MiB file
	path := filepath.Join(t.TempDir(), "in.raw")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadRaw(path, layout.MustParse("f32[512,512]"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum byte
	err = GuardFaults("IN "+path, func() error {
		for _, c := range b.Data[4096:] {
			sum += c
		}
		return nil
	}, b)
	if !errors.Is(err, ErrFault) || !strings.Contains(err.Error(), "IN "+path) {
		t.Fatalf("GuardFaults: %v (the buffer may not be mapped here)", err)
	}
}
