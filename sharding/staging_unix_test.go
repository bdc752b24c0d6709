//go:build unix

package sharding

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStagingCleansOnlyDeadJobs: a new job's staging removes the directory of a job
// whose lock nobody holds (a killed one's), with its staged images, and leaves a
// running job's, a directory without a lock file, one named otherwise, and a killed
// job's directory that holds a file it did not stage (less what it did).
func TestStagingCleansOnlyDeadJobs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	root := filepath.Join(os.TempDir(), stagingDirName)
	live, err := newStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer live.close()
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(live.dir, "tpulayout-shard-1.bin"))
	dead := filepath.Join(root, "999999-0123456789abcdef")
	write(filepath.Join(dead, stagingLock))
	write(filepath.Join(dead, "tpulayout-shard-2.bin"))
	write(filepath.Join(dead, "tpulayout-shard-3.bin"))
	mixed := filepath.Join(root, "999998-0123456789abcdef")
	write(filepath.Join(mixed, stagingLock))
	write(filepath.Join(mixed, "tpulayout-shard-4.bin"))
	write(filepath.Join(mixed, "notes.txt"))
	unlocked := filepath.Join(root, "999997-0123456789abcdef", "tpulayout-shard-5.bin")
	write(unlocked)
	other := filepath.Join(root, "mine", stagingLock)
	write(other)

	s, err := newStaging()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(live.dir, "tpulayout-shard-1.bin"), filepath.Join(mixed, "notes.txt"), unlocked, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("removed %s: %v", p, err)
		}
	}
	for _, p := range []string{dead, filepath.Join(mixed, "tpulayout-shard-4.bin")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("left %s (%v)", p, err)
		}
	}
	s.close()
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("a closed staging left %s", s.dir)
	}
}
