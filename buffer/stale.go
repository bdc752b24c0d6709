package buffer

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Temporaries and what a killed process leaves of them. WriteFileAtomicFile's
// temporary file, and a directory made with MkdirTempLocked, are held under an
// exclusive advisory lock (flock on Unix) for as long as they are written; the kernel
// drops it when the process ends, however it ends. A temporary that matches the
// pattern of a path's temporaries and that nobody holds is therefore stale (left by
// SIGKILL, the OOM killer, a power cut) once unmodified for a second, and
// RemoveStaleTemps may remove it. Where
// there are no such locks (Windows), a temporary is stale once untouched for
// StaleAge.

// lockGrace: a temporary is created a moment before it is locked, so one unmodified
// for less than this is never taken for stale (concurrent writers into one directory,
// as the processes of a sharded conversion are, removed each other's otherwise).
const lockGrace = time.Second

// StaleAge is how long an unlocked temporary must be unmodified before it counts as
// stale where locks are not available.
const StaleAge = time.Hour

// tempMarker is the file MkdirTempLocked puts first in its directory: the proof that
// the directory is one of ours before RemoveStaleTemps removes it with its contents.
const tempMarker = ".tpulayout-temporary"

// isTempName reports whether name is a temporary of base: "." + base + ".tmp" and the
// digits os.CreateTemp and os.MkdirTemp put for the "*".
func isTempName(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+".tmp")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// MkdirTempLocked makes a temporary directory for path beside it, named as
// WriteFileAtomicFile names its files, holds it locked and marks it as ours. unlock
// releases the lock (call it once the directory is renamed or removed).
func MkdirTempLocked(path string) (dir string, unlock func(), err error) {
	parent, base := filepath.Split(filepath.Clean(path))
	if parent == "" {
		parent = "."
	}
	dir, err = os.MkdirTemp(parent, "."+base+".tmp*")
	if err != nil {
		return "", nil, err
	}
	m, err := os.OpenFile(filepath.Join(dir, tempMarker), os.O_CREATE|os.O_RDWR, 0o644)
	if err == nil {
		err = lockFile(m)
	}
	if err != nil {
		if m != nil {
			m.Close()
		}
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() { m.Close() }, nil
}

// RemoveTempMarker removes the mark MkdirTempLocked put in dir, before dir is renamed
// into place.
func RemoveTempMarker(dir string) error { return os.Remove(filepath.Join(dir, tempMarker)) }

// RemoveStaleTemps removes the stale temporaries of path (see the top of this file):
// files ".BASE.tmpN" beside it, and directories of that name that hold our mark. It
// returns what it removed; what it cannot remove or prove stale it leaves.
func RemoveStaleTemps(path string) []string {
	parent, base := filepath.Split(filepath.Clean(path))
	if parent == "" {
		parent = "."
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !isTempName(e.Name(), base) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		switch {
		case e.Type().IsRegular():
			if staleFile(p) && os.Remove(p) == nil {
				removed = append(removed, p)
			}
		case e.IsDir():
			if staleFile(filepath.Join(p, tempMarker)) && os.RemoveAll(p) == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// IsStaleTemp reports whether the entry name in dir is a stale temporary of one of
// our writes (of any file of dir): a file ".NAME.tmpN" that nobody holds locked.
func IsStaleTemp(dir, name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, ".tmp")
	if i < 1 || !isTempName(name, name[1:i]) {
		return false
	}
	p := filepath.Join(dir, name)
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	return staleFile(p)
}

// staleFile reports whether the file at p exists and nobody holds it locked (or, where
// there are no locks, it is older than StaleAge).
func staleFile(p string) bool {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || time.Since(st.ModTime()) < lockGrace {
		return false
	}
	return isUnlocked(f)
}

// RemoveStaleTempsIn removes every stale temporary file of dir (of any file's write,
// see IsStaleTemp) and returns what it removed.
func RemoveStaleTempsIn(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if IsStaleTemp(dir, e.Name()) && os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, filepath.Join(dir, e.Name()))
		}
	}
	return removed
}
