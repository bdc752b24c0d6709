package main

import (
	"io"
	"os"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
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
	return &convert.Job{In: in, Out: out, Stdin: stdin, Stdout: streamOut, Names: convert.FlagNames,
		Limits: convert.Limits{BandBytes: bandBytes, SparseMinBytes: sparseMinBytes,
			Memory: availableMemory, FreeDisk: freeDiskSpace}}
}

// padOption reads --pad; the library takes "" for zero, the flag does not.
func padOption(s string) (relayout.Option, error) {
	if s == "" {
		return nil, usagef("bad --pad \"\": want zero, leave or a number")
	}
	return convert.PadOption(s, convert.FlagNames)
}

// guessTally gathers the guessed defaults of many tensors for one note.
type guessTally struct {
	to string
	g  convert.Guesses
}

func (g *guessTally) add(name string, dst layout.Shape) { g.g.To = g.to; g.g.Add(name, dst) }
func (g *guessTally) line(total int) string {
	g.g.To = g.to
	return g.g.Line(total, "--to hlo:FILE:param=N")
}

type imageWriter = convert.ImageWriter

// writeOutput writes OUT atomically, or streams it (see convert.Job.WriteOutput).
func writeOutput(out string, write func(imageWriter) error) error {
	return newJob("", out).WriteOutput(write)
}

func checkOutName(out string) error { return newJob("", out).CheckOutName() }
func isStdout(out string) bool      { return convert.IsStdout(out) }
func isStream(out string) bool      { return convert.IsStream(out) }

// Temporary outputs, which a signal removes (see exitOnSignal).
func holdSignals() (release func()) { return convert.HoldTemps() }
func trackHeld(path string)         { convert.TrackHeld(path) }
func untrack(path string)           { convert.Untrack(path) }
func setOutputInPlace(v bool)       { convert.SetPlaced(v) }

func fileErr(err error) string    { return convert.FileErr(err) }
func cleanErr(err error) string   { return convert.CleanErr(err) }
func nameText(name string) string { return convert.NameText(name) }
func sizeText(n int64) string     { return convert.SizeText(n) }
