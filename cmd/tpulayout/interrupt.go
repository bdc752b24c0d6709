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
}{paths: map[string]bool{}}

// trackTemp registers a temporary file or directory until the returned func is called
// (after the rename into place, or the removal on error).
func trackTemp(path string) (untrack func()) {
	temps.Lock()
	temps.paths[path] = true
	temps.Unlock()
	return func() {
		temps.Lock()
		delete(temps.paths, path)
		temps.Unlock()
	}
}

// removeTemps removes every tracked temporary output. It keeps the lock: the process
// is about to exit.
func removeTemps() {
	temps.Lock()
	for p := range temps.paths {
		os.RemoveAll(p)
	}
}

// exitOnSignal removes the temporary outputs and exits with [exitInterrupted] on the
// first SIGINT or SIGTERM.
func exitOnSignal(stderr io.Writer) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-c
		removeTemps()
		fmt.Fprintf(stderr, "tpulayout: stopped by %s; temporary output removed\n", sig)
		os.Exit(exitInterrupted)
	}()
}
