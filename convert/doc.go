// Package convert is the file-conversion job of tpulayout: a host array (.npy, a
// .safetensors tensor or every tensor, raw bytes of a given shape, or standard input)
// relaid out into a device layout and written to a file, a stream or a directory, and
// back. The tpulayout command's convert verb is this package behind flags.
//
// A [Job] holds the settings: In and Out, To (a shape, a layout alone, tpu:GEN,
// hlo:MODULE:param=N or a dtype; see [Job.Target]), From for a raw In, DType for a
// fused conversion, Pad, Tensor, All, Force and View. [Job.Run] resolves the target,
// checks memory and disk space before anything is allocated or created, and writes Out
// to a temporary file that it renames into place (a stream, a device or a FIFO is
// written in place; a mostly-padding Out sparsely; a large one in bands of rows, with
// bounded memory). It reports progress through [Progress] and notes through Job.Note,
// and prints nothing.
//
// Errors are *[Error] values of a [Kind] (Input, Setting, Output) that name the field
// they are about ([Error.Field]) and unwrap to their cause; their messages name the
// job's fields, which a caller words its own way ([Error.Words]; a command line by
// its flags).
//
// A Job tells its [Temps] of the temporary outputs it writes, so that a process that
// ends on a signal can remove them, and [Job.RunContext] stops a job when its context
// is done.
//
// The same package holds what other jobs share with conversion: opening input arrays
// ([OpenArray], [ViewArray]), shape arguments ([ParseShape], [CompileShape]), Pad
// checks ([PadOption], [CheckPad]), guessed-default notes ([Guess], [Guesses]), and
// the atomic output of a file ([Job.WriteOutput]).
package convert
