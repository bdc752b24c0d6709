package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/sharding"
)

var gatherVerb = &verb{
	name:     "gather",
	synopsis: "OUTDIR OUT.safetensors",
	summary:  "reassemble the global arrays of a sharded conversion",
	detail: `Gather reads the device images of a sharded conversion in OUTDIR and writes the
global arrays to OUT.safetensors, row-major in the images' dtype. Each shard's file is
checked against its size and SHA-256 in the manifest (a replicated shard is one file that
all its devices load, so this is where replicas are checked to agree), and the shards
must place every device of the mesh as the spec says. OUT is written to a temporary
file and renamed.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "OUTDIR", "OUT"); err != nil {
				return err
			}
			if !strings.HasSuffix(strings.ToLower(pos[1]), ".safetensors") {
				return usagef("OUT %s must be a .safetensors file", pos[1])
			}
			m, err := sharding.Gather(pos[0], pos[1])
			if err != nil {
				return fmt.Errorf("%s", libErr(err))
			}
			_, err = fmt.Fprintf(w, "%s: %s\n", pos[1], plural(int64(len(m.Tensors)), "tensor"))
			return err
		}
	},
}
