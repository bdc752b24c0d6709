package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tpulayout/tpulayout/convert"
)

var convertVerb = &verb{
	name:     "convert",
	synopsis: "IN OUT [--to SHAPE|tpu:GEN] [flags]",
	summary:  "a host array to a device image, or back",
	detail: `Convert relays out the array in IN into the layout --to gives and writes it to OUT.

IN is a .npy file (dtype and shape from its header, C or Fortran order), a .safetensors
file (--tensor NAME picks the tensor; a file with one tensor needs none), or, under any
other name, raw bytes whose shape and layout --from gives (a device image, say). IN -
is standard input, read whole into a temporary file (a .npy or .safetensors stream is
recognised by its first bytes); it holds one array, so not with --all or --mesh.

--to is the layout of OUT:
  bf16[4096,4096]{1,0:T(8,128)(2,1)}  a shape: its dims must be IN's; another dtype converts
                                      (f32 to bf16 and f16 round to nearest even)
  '{1,0:T(8,128)(2,1)}'               a layout alone, for IN's dims and --dtype (default IN's)
  tpu:v5e                             the generation's default device layout for IN's shape
                                      and --dtype; the chosen shape is printed, and a note
                                      on stderr says when real dumps leave it a guess
  hlo:MODULE.txt:param=N              the layout the compiled program gives parameter N
                                      (or result=N): exact where tpu:GEN is a model
  f32                                 a dtype alone: row-major, for host files

OUT ending in .npy or .safetensors gets the host array back, row-major (the reverse job:
--from a device layout with a raw IN; --to, when given, sets the host dtype, and
--tensor the tensor's name, default "tensor"). Any other OUT gets the raw device image:
exactly the layout's footprint, padding filled as --pad says (a number must be one
OUT's element type holds exactly). OUT is written to a temporary file in its directory,
fsynced (not with --sync=false) and renamed into place, so a failure, a panic, a signal
or a crash leaves no partial OUT; a
symlink OUT is replaced at its target and stays a link. OUT '-', /dev/stdout, a
character device or a FIFO is streamed into in place (stdout then holds the image
alone). IN is only read; an IN truncated meanwhile is an error naming it.

--all converts every tensor of a .safetensors IN into OUT, a new directory of images
(one .bin per tensor) and manifest.json listing each tensor's name, source dtype and
shape, device layout, file and size. It takes --to tpu:GEN or a layout alone; --dtype
then applies to the floating-point tensors only.

Large inputs are memory-mapped and converted in bands of rows so that memory use stays
bounded: bands of OUT's majormost dim, read from IN's rows when it is majormost there
too, or gathered from a row-major IN for an OUT of 256 MiB or more (a transposing
device layout; the reverse job converts it in one piece). Stdout gets the shape of
OUT (with --all, one line per tensor); progress goes to stderr when it is a terminal,
or with --progress.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		c := &convertFlags{}
		fs.StringVar(&c.to, "to", "", "the `LAYOUT` of OUT: a shape, a layout {…} alone, a dtype, or tpu:GEN")
		fs.StringVar(&c.from, "from", "", "the `SHAPE` (with its layout) of a raw IN")
		fs.StringVar(&c.dtype, "dtype", "", "element type `T` of OUT with a layout alone or tpu:GEN (default: IN's)")
		fs.StringVar(&c.tensor, "tensor", "", "the tensor `NAME` to read from a .safetensors IN, or to write to a .safetensors OUT")
		fs.BoolVar(&c.all, "all", false, "convert every tensor of a .safetensors IN into the directory OUT")
		fs.StringVar(&c.pad, "pad", "zero", "what OUT's padding holds, `PAD`: zero, leave (not written), or a number OUT's element type holds exactly")
		fs.BoolVar(&c.progress, "progress", false, "show progress on stderr even when it is not a terminal")
		fs.BoolVar(&c.force, "force", false, "with --all, replace an existing OUT directory of an earlier --all, atomically")
		fs.StringVar(&c.view, "view", "", "read IN's elements as `T`, a type of the same width, bit for bit (a u16 .npy holding bf16 bits: --view bf16)")
		sh := defineShardFlags(fs) // --mesh and company: shard.go
		durable := syncFlag(fs)
		return func(pos []string, w io.Writer) error {
			defer durable()()
			if err := needArgs(pos, "IN", "OUT"); err != nil {
				return err
			}
			if err := checkStdoutOut(pos[1]); err != nil {
				return err
			}
			if pos[0] == "-" && (c.all || sh.active()) {
				// Their manifests name IN, for verify to read again later.
				return usagef("IN - (standard input) is for one array; --all and --mesh record IN in the manifest, so give a file")
			}
			if sh.active() {
				return sh.run(c, pos[0], pos[1], w)
			}
			return c.run(pos[0], pos[1], w)
		}
	},
}

type convertFlags struct {
	to, from, dtype, tensor, pad string
	all, progress                bool
	view                         string
	force                        bool
}

// run is convert without --mesh: the library's job, and its report on w.
func (c *convertFlags) run(in, out string, w io.Writer) error {
	if c.pad == "" && out != "" { // the job would take it for zero
		_, err := padOption(c.pad)
		return err
	}
	j := newJob(in, out)
	j.To, j.From, j.DType, j.Tensor, j.All, j.Force, j.Pad, j.View = c.to, c.from, c.dtype, c.tensor, c.all, c.force, c.pad, c.view
	j.Note = func(s string) { fmt.Fprintf(progressOut, "tpulayout convert: %s\n", s) }
	j.Progress = newProgress(c.progress, "convert")
	r, err := j.Run()
	if err != nil {
		return err
	}
	if r.Manifest == nil && convert.IsStdout(out) {
		return nil // standard output holds the image alone
	}
	return r.WriteText(w, out)
}
