package main

import (
	"os"
	"sync"
	"sync/atomic"
)

// tempOutputs is one run's temporary outputs (a convert.Temps): a job writes OUT to a
// temporary file (or, with --all and --mesh, a temporary tree) and renames it into
// place. A signal that ends the process skips the deferred cleanups that remove it
// after an error, so the signal handler calls removeOnSignal, which removes every
// temporary being written: an interrupted job leaves OUT as it was and nothing beside.
type tempOutputs struct {
	mu    sync.Mutex
	paths map[string]bool
	// placed: OUT is complete and renamed into place, so that a broken pipe from
	// then on can only lose progress or a report, not output.
	placed bool
}

func newTempOutputs() *tempOutputs { return &tempOutputs{paths: map[string]bool{}} }

// running is the run a signal stops: the process's, as signals are. run sets it.
var running atomic.Pointer[tempOutputs]

// Hold keeps removeOnSignal waiting until release is called (release may be called
// more than once). A temporary output is created and Tracked in between, so that no
// signal can come after it exists and before it is tracked.
func (t *tempOutputs) Hold() (release func()) {
	t.mu.Lock()
	return sync.OnceFunc(t.mu.Unlock)
}

// Track registers a temporary file or directory; the temporaries must be held.
func (t *tempOutputs) Track(path string) { t.paths[path] = true }

// Untrack forgets a temporary output once it is renamed into place or removed.
func (t *tempOutputs) Untrack(path string) {
	t.mu.Lock()
	delete(t.paths, path)
	t.mu.Unlock()
}

// Placed records that OUT is in place.
func (t *tempOutputs) Placed() {
	t.mu.Lock()
	t.placed = true
	t.mu.Unlock()
}

// isPlaced reports whether OUT is in place.
func (t *tempOutputs) isPlaced() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.placed
}

// removeOnSignal is for a signal handler about to end the process: it removes every
// tracked temporary output and returns true, keeping them held so that none is made
// after. For a broken pipe (SIGPIPE) once OUT is placed it does nothing and returns
// false: only progress or a report can be lost then, and the job may finish.
func (t *tempOutputs) removeOnSignal(brokenPipe bool) bool {
	t.mu.Lock()
	if brokenPipe && t.placed {
		t.mu.Unlock()
		return false
	}
	for p := range t.paths {
		os.RemoveAll(p)
	}
	return true
}

// runTemps is the running run's temporary outputs (a fresh set outside run).
func runTemps() *tempOutputs {
	if t := running.Load(); t != nil {
		return t
	}
	return newTempOutputs()
}
