package main

import (
	"io"
	"os"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/relayout"
)

// The command's words for the conversion job's parts, and the one-line calls into
// package convert that the verbs share (shard.go, gather.go and storeout.go among them).

// Where the job reads and writes besides its files; tests replace them.
var (
	// stdin is where IN - and DUMP - are read from.
	stdin io.Reader = os.Stdin
	// streamOut is where OUT '-' (or /dev/stdout) streams its bytes: standard output
	// itself, not the writer run collects a verb's report in.
	streamOut io.Writer = os.Stdout
	// The job's limits (see convert.Limits); tests lower the sizes and fake the machine.
	bandBytes       int64 = convert.DefaultBandBytes
	sparseMinBytes  int64 = convert.DefaultSparseMinBytes
	availableMemory       = convert.SystemMemory
	freeDiskSpace         = convert.SystemFreeDisk
)

// newJob is a conversion job with the command's words, streams and limits.
func newJob(in, out string) *convert.Job {
	return &convert.Job{In: in, Out: out, Stdin: stdin, Stdout: streamOut, Temps: runTemps(),
		Limits: convert.Limits{BandBytes: bandBytes, SparseMinBytes: sparseMinBytes,
			Memory: availableMemory, FreeDisk: freeDiskSpace}}
}

// padOption reads --pad; the library takes "" for zero, the flag does not.
func padOption(s string) (relayout.Option, error) {
	if s == "" {
		return nil, usagef("bad --pad \"\": want zero, leave or a number")
	}
	return convert.PadOption(s)
}
