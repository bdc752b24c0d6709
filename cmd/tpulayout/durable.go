package main

import (
	"flag"

	"github.com/tpulayout/tpulayout/buffer"
)

// syncFlag defines --sync for a verb that writes files; the returned func applies it
// for the verb's run and returns the func that restores the default (tests run verbs
// one after another in one process).
func syncFlag(fs *flag.FlagSet) func() (restore func()) {
	on := fs.Bool("sync", true, "fsync what is written before it is renamed into place, so that it survives a crash of the machine; --sync=false leaves writing it to the disk to the system, as cp and cat do (faster when the disk is slower than the job)")
	return func() func() {
		buffer.SetDurable(*on)
		return func() { buffer.SetDurable(true) }
	}
}
