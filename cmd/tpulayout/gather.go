package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding"
)

var gatherVerb = &verb{
	name:     "gather",
	synopsis: "OUTDIR OUT.safetensors",
	summary:  "reassemble the global arrays of a sharded conversion",
	detail: `Gather reads the device images of a sharded conversion in OUTDIR and writes the
global arrays to OUT.safetensors, row-major in the images' dtype. Each shard's file is
checked against its size and checksum in the manifest (CRC-32C or SHA-256, as it names) (a replicated shard is one file that
all its devices load, so this is where replicas are checked to agree), and the shards
must place every device of the mesh as the spec says, each shard in the file its
index names. OUT is written to a temporary file and renamed (a symbolic link is written
at its target); a FIFO, a character device or /dev/stdout is streamed into. Progress
goes to stderr when it is a terminal, or with --progress.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print the manifest of the gathered conversion as JSON")
		durable := syncFlag(fs)
		progress := progressFlag(fs)
		return func(pos []string, w io.Writer) error {
			defer durable()()
			if err := needArgs(pos, "OUTDIR", "OUT"); err != nil {
				return err
			}
			if err := checkStdoutOut(pos[1]); err != nil {
				return err
			}
			if *asJSON && convert.IsStdout(pos[1]) {
				return usagef("--json prints to standard output, which OUT %s already takes", pos[1])
			}
			if !convert.IsStream(pos[1]) && !strings.HasSuffix(strings.ToLower(pos[1]), ".safetensors") {
				return usagef("OUT %s must be a .safetensors file", pos[1])
			}
			o, err := sharding.OpenOutdir(pos[0])
			if err != nil {
				return shardErr(err)
			}
			prog := newProgress(*progress, "gather")
			o.Progress, o.Temps = prog, runTemps()
			m, err := o.GatherFile(pos[1], streamOut)
			prog.Done()
			if err != nil {
				return shardErr(err)
			}
			if convert.IsStdout(pos[1]) { // stdout holds the file alone
				return nil
			}
			if *asJSON {
				return writeJSON(w, m)
			}
			_, err = fmt.Fprintf(w, "%s: %s\n", pos[1], report.Plural(int64(len(m.Tensors)), "tensor"))
			return err
		}
	},
}
