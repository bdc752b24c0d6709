package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTempOutputsOnSignal: the temporaries being written are removed, except on a
// broken pipe once the output is placed; each run has its own.
func TestTempOutputsOnSignal(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "tmp")
	os.WriteFile(tmp, nil, 0o644)
	temps := newTempOutputs()
	release := temps.Hold()
	temps.Track(tmp)
	release()
	release() // a second release does nothing
	temps.Placed()
	if temps.removeOnSignal(true) {
		t.Fatal("a broken pipe after the output was placed cleaned up")
	}
	if newTempOutputs().isPlaced() {
		t.Fatal("a new run starts placed")
	}
	if !temps.removeOnSignal(false) {
		t.Fatal("an interrupt did not clean up")
	}
	temps.mu.Unlock() // removeOnSignal keeps them held for the exit
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary is still there (%v)", err)
	}
}
