package sharding

// A conversion to a bucket stages each image in a local file before uploading it
// (see bucketSink.put). The files of one job live in a directory of their own,
// $TMPDIR/tpulayout-staging/PID-RANDOM/, beside a lock file the job holds locked
// (flock) while it runs: the kernel releases the lock when the process ends however
// it ends (SIGKILL, the OOM killer), so a later job that can take the lock knows the
// owner is gone and removes what it left. It removes only what a job writes there:
// staged images, the lock file, then the directory if that leaves it empty.

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

const (
	stagingDirName = "tpulayout-staging"
	stagingLock    = "tpulayout-staging.lock"
	stagedPattern  = "tpulayout-shard-*.bin" // os.CreateTemp's; * is digits
)

var (
	stagingJobRE = regexp.MustCompile(`^[0-9]+-[0-9a-f]{16}$`)
	stagedRE     = regexp.MustCompile(`^tpulayout-shard-[0-9]+\.bin$`)
)

// staging is one job's staging directory, locked.
type staging struct {
	dir  string
	lock *os.File
}

// newStaging removes the staging directories of jobs that are gone, then makes
// this job's. The directory is made and locked under a name no cleaner looks at,
// then renamed into place, so no cleaner ever sees it unlocked.
func newStaging() (*staging, error) {
	root := filepath.Join(os.TempDir(), stagingDirName)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("sharding: staging directory: %w", err)
	}
	cleanStaging(root)
	cleanOldStaged(os.TempDir())
	var r [8]byte
	rand.Read(r[:])
	name := fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(r[:]))
	tmp := filepath.Join(root, "."+name+".new")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("sharding: staging directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(tmp, stagingLock), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err == nil {
		err = lockOwn(lock)
	}
	dir := filepath.Join(root, name)
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp) // only this job's, just made
		return nil, fmt.Errorf("sharding: staging directory: %w", err)
	}
	return &staging{dir: dir, lock: lock}, nil
}

// close removes the job's staging directory and what it staged there.
func (s *staging) close() {
	removeStaging(s.dir)
	s.lock.Close()
}

// removeStaging removes the staged images and the lock file in dir, then dir if
// nothing else is left in it.
func removeStaging(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Type().IsRegular() && stagedRE.MatchString(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(filepath.Join(dir, stagingLock))
	os.Remove(dir)
}

// cleanStaging removes the staging directories under root whose lock file no job
// holds; it leaves alone anything not named as a job's or without a lock file.
func cleanStaging(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !stagingJobRE.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		f, err := os.OpenFile(filepath.Join(dir, stagingLock), os.O_RDWR, 0)
		if err != nil {
			continue // not a job's, or already being removed
		}
		if tryLock(f) {
			removeStaging(dir)
		}
		f.Close()
	}
}
