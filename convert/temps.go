package convert

import (
	"os"
	"sync"
)

// Temporary outputs. A Job writes Out to a temporary file (or, with All, a temporary
// tree) and renames it into place. A signal that ends the process skips the deferred
// cleanups that remove it after an error, so the process's handler calls
// [CleanupOnSignal], which removes every temporary being written: an interrupted job
// leaves Out as it was and nothing beside it. The registry is the process's, as
// signals are.
var temps = struct {
	sync.Mutex
	paths map[string]bool
	// placed: Out is complete and renamed into place, so that a broken pipe from
	// then on can only lose progress or a report, not output.
	placed bool
}{paths: map[string]bool{}}

// SetPlaced records whether the output is in place (see [CleanupOnSignal]). A Job sets
// it when it renames Out into place; a command clears it when it starts.
func SetPlaced(v bool) {
	temps.Lock()
	temps.placed = v
	temps.Unlock()
}

// Placed reports whether the output is in place.
func Placed() bool {
	temps.Lock()
	defer temps.Unlock()
	return temps.placed
}

// HoldTemps keeps [CleanupOnSignal] waiting until release is called (release may be
// called more than once). A temporary output is created and registered with
// [TrackHeld] in between, so that no signal can come after it exists and before it is
// tracked: a test that signalled as soon as the file appeared caught that gap.
func HoldTemps() (release func()) {
	temps.Lock()
	return sync.OnceFunc(temps.Unlock)
}

// TrackHeld registers a temporary file or directory; the temporaries must be held
// (see [HoldTemps]).
func TrackHeld(path string) { temps.paths[path] = true }

// Untrack forgets a temporary output once it is renamed into place or removed.
func Untrack(path string) {
	temps.Lock()
	delete(temps.paths, path)
	temps.Unlock()
}

// CleanupOnSignal is for a signal handler about to end the process: it removes every
// tracked temporary output and returns true, keeping the registry locked so that none
// is made after. For a broken pipe (SIGPIPE) once the output is placed it does
// nothing and returns false: only progress or a report can be lost then, and the job
// may finish.
func CleanupOnSignal(brokenPipe bool) bool {
	temps.Lock()
	if brokenPipe && temps.placed {
		temps.Unlock()
		return false
	}
	for p := range temps.paths {
		os.RemoveAll(p)
	}
	return true
}
