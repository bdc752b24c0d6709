package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// temps holds the temporary outputs being written. A signal ends the process without
// running the deferred cleanups that remove them after an error, so the signal handler
// removes them itself: an interrupted convert leaves OUT as it was and nothing beside it.
var temps = struct {
	sync.Mutex
	paths map[string]bool
	// inPlace: OUT is complete and renamed into place, so that a broken pipe from
	// then on can only lose progress or the report on stdout, not output.
	inPlace bool
}{paths: map[string]bool{}}

// setOutputInPlace records whether OUT is in place (see temps.inPlace).
func setOutputInPlace(v bool) {
	temps.Lock()
	temps.inPlace = v
	temps.Unlock()
}

// outputInPlace reports whether OUT is in place.
func outputInPlace() bool {
	temps.Lock()
	defer temps.Unlock()
	return temps.inPlace
}

// holdSignals keeps the signal handler waiting until release is called (release may be
// called more than once). A temporary output is created and registered with trackHeld
// in between, so that no signal can come after it exists and before it is tracked: a
// test that signalled as soon as the file appeared caught that gap.
func holdSignals() (release func()) {
	temps.Lock()
	return sync.OnceFunc(temps.Unlock)
}

// trackHeld registers a temporary file or directory; signals must be held.
func trackHeld(path string) { temps.paths[path] = true }

// untrack forgets a temporary output once it is renamed into place or removed.
func untrack(path string) {
	temps.Lock()
	delete(temps.paths, path)
	temps.Unlock()
}

// removeTemps removes every tracked temporary output. It keeps the lock: the process
// is about to exit.
func removeTemps() {
	temps.Lock()
	removeTempsLocked()
}

func removeTempsLocked() {
	for p := range temps.paths {
		os.RemoveAll(p)
	}
}

// stopSignals end the process after removing the temporary outputs. SIGHUP (the
// terminal went away) and SIGQUIT (Ctrl-\) would otherwise end it without the cleanup
// too, SIGQUIT with a goroutine dump.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// exitBrokenPipe follows SIGPIPE: 128+13, as shells report a process that it killed.
const exitBrokenPipe = 141

// exitOnSignal removes the temporary outputs and exits with [exitInterrupted] on the
// first of stopSignals. SIGPIPE (stdout or stderr is a pipe whose reader has gone, say
// 'convert … --progress 2>&1 | head -1') would kill the process without the cleanup
// too: it removes them and exits with [exitBrokenPipe], silently, as tools do. Once OUT
// is in place, though, a broken pipe only loses progress or the report of what was
// written: the write fails, the signal is ignored, and the command finishes with its
// own status (run does not count that failed write).
func exitOnSignal(stderr io.Writer) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, append(stopSignals, syscall.SIGPIPE)...)
	go func() {
		var sig os.Signal
		for sig = range c {
			temps.Lock() // kept: decided and cleaned up under one lock, then exit
			if sig != syscall.SIGPIPE || !temps.inPlace {
				break
			}
			temps.Unlock()
		}
		removeTempsLocked()
		if sig == syscall.SIGPIPE {
			os.Exit(exitBrokenPipe)
		}
		fmt.Fprintf(stderr, "tpulayout: stopped by %s; temporary output removed\n", sig)
		os.Exit(exitInterrupted)
	}()
}
