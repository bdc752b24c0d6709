package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end the process after removing the temporary outputs. SIGHUP (the
// terminal went away) and SIGQUIT (Ctrl-\) would otherwise end it without the cleanup
// too, SIGQUIT with a goroutine dump.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// exitBrokenPipe follows SIGPIPE: 128+13, as shells report a process that it killed.
const exitBrokenPipe = 141

// exitOnSignal removes the running run's temporary outputs and exits with
// [exitInterrupted] on the first of stopSignals. SIGPIPE (stdout or stderr is a pipe
// whose reader has gone, say 'convert … --progress 2>&1 | head -1') would kill the
// process without the cleanup too: it removes them and exits with [exitBrokenPipe],
// silently, as tools do. Once OUT is in place, though, a broken pipe only loses
// progress or the report of what was written: the write fails, the signal is ignored,
// and the command finishes with its own status (run does not count that failed write).
func exitOnSignal(stderr io.Writer) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, append(stopSignals, syscall.SIGPIPE)...)
	go func() {
		var sig os.Signal
		for sig = range c {
			if t := running.Load(); t == nil || t.removeOnSignal(sig == syscall.SIGPIPE) {
				break // the temporaries stay held: the process exits now
			}
		}
		if sig == syscall.SIGPIPE {
			os.Exit(exitBrokenPipe)
		}
		fmt.Fprintf(stderr, "tpulayout: stopped by %s; temporary output removed\n", sig)
		os.Exit(exitInterrupted)
	}()
}
