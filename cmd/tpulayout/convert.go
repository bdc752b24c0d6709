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
	more:     []string{"CKPT OUTDIR --mesh MESH --spec SPEC|--rules FILE"},
	detail: `Convert relays out the array in IN into the layout --to gives and writes it to OUT.
With --mesh it shards a checkpoint over a device mesh instead (see Sharding below).

IN is a .npy file (dtype and shape from its header, C or Fortran order), a .safetensors
file (--tensor NAME picks the tensor; a file with one tensor needs none), or, under any
other name, raw bytes whose shape and layout --from gives (a device image, say). IN -
is standard input, read whole into a temporary file (a .npy or .safetensors stream is
recognised by its first bytes); it holds one array, so not with --all or --mesh.

--to is the layout of OUT:
  bf16[4096,4096]{1,0:T(8,128)(2,1)}
      a shape: its dims must be IN's; another dtype converts (f32 to bf16 and
      f16 round to nearest even)
  '{1,0:T(8,128)(2,1)}'
      a layout alone, for IN's dims and --dtype (default IN's)
  tpu:v5e
      the generation's default device layout for IN's shape and --dtype; the
      chosen shape is printed, and a note on stderr says when real dumps leave
      it a guess
  hlo:MODULE.txt:param=N
      the layout the compiled program gives parameter N (or result=N): exact
      where tpu:GEN is a model
  f32
      a dtype alone: row-major, for host files

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
or with --progress.

Sharding:

  tpulayout convert CKPT OUTDIR --mesh data=2,model=4 \
      --spec 'P("data", "model")' --to tpu:v5e

places every tensor of the checkpoint CKPT on the devices of the mesh as
jax.device_put with a NamedSharding would, and writes each distinct shard's device
image once. CKPT is a .safetensors file or a sharded checkpoint's index,
model.safetensors.index.json (its files beside it), as a path or an s3://BUCKET/KEY or
gs://BUCKET/KEY URL; one tensor, or --tensor NAME, or --all. --spec gives every tensor
one PartitionSpec; --rules FILE gives each its own, from a JSON file such as

  {"rules": [{"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"},
             {"match": "mlp\\.w1$", "spec": "P(\"data\", \"model\")"}],
   "default": "P()"}

in which the first rule whose "match" (a regular expression, found anywhere in the
name; anchor it with ^…$) matches a tensor's name gives its spec, and "default" that
of a tensor no rule matches (without one, such a tensor is an error). --spec and
--rules exclude each other. OUTDIR, a new or empty directory or an s3:// or gs://
prefix, receives:

  OUTDIR/manifest.json     the mesh, each device's coordinates and files, and
                           per tensor its spec, layout and shards (index
                           ranges, devices, file, size and checksum)
  OUTDIR/TENSOR/I_J.bin    one image per distinct shard, named by its position
                           along each dim; a shard's replicas share its file

A directory is written beside OUTDIR and renamed into place when complete; --force
replaces an OUTDIR that a sharded conversion wrote (its manifest lists everything in
it). --process I/N writes only the devices of process I of N and a partial manifest,
which 'tpulayout manifest merge OUTDIR' joins; 'tpulayout verify OUTDIR' checks the
images against the checkpoint, and 'tpulayout gather' reassembles the arrays.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		c := &convertFlags{}
		fs.StringVar(&c.to, "to", "", "the `LAYOUT` of OUT: a shape, a layout {…} alone, a dtype, or tpu:GEN")
		fs.StringVar(&c.from, "from", "", "the `SHAPE` (with its layout) of a raw IN")
		fs.StringVar(&c.dtype, "dtype", "", "element type `T` of OUT with a layout alone or tpu:GEN (default: IN's)")
		fs.StringVar(&c.tensor, "tensor", "", "the tensor `NAME` to read from a .safetensors IN, or to write to a .safetensors OUT")
		fs.BoolVar(&c.all, "all", false, "convert every tensor of a .safetensors IN into the directory OUT")
		fs.StringVar(&c.pad, "pad", "zero", "what OUT's padding holds, `PAD`: zero, leave (not written), or a number OUT's element type holds exactly")
		fs.BoolVar(&c.progress, "progress", false, "show progress on stderr even when it is not a terminal")
		fs.BoolVar(&c.force, "force", false, "replace the OUT directory of an earlier --all, or the OUTDIR of an earlier sharded conversion (--mesh), once the new one is complete")
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
	j.Note = func(m convert.Message) { fmt.Fprintf(progressOut, "tpulayout convert: %s\n", messageText(m)) }
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
