package sharding

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOldStagedRemovedWhenUnopened: a new job's staging removes the images that an
// earlier version staged straight in $TMPDIR (tpulayout-shard-N.bin) once no process
// has them open, and leaves one still open (its process is uploading it) and files
// named otherwise.
func TestOldStagedRemovedWhenUnopened(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	write := func(name string) string {
		t.Helper()
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := write("tpulayout-shard-123.bin")
	open := write("tpulayout-shard-456.bin")
	other := write("tpulayout-shard-x.bin")
	notes := write("notes.bin")
	f, err := os.Open(open) // as its uploading process holds it
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := newStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("left %s (%v)", dead, err)
	}
	for _, p := range []string{open, other, notes} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("removed %s: %v", p, err)
		}
	}
}
