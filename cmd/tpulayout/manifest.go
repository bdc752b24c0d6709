package main

import (
	"flag"
	"fmt"
	"io"
)

var manifestVerb = &verb{
	name:     "manifest",
	synopsis: "merge OUTDIR",
	summary:  "merge the partial manifests of a sharded conversion run as N processes",
	detail: `Manifest merge combines the partial manifests that the N processes of a sharded
conversion (tpulayout convert … --mesh … --process I/N OUTDIR) wrote into OUTDIR,
manifest.process-I-of-N.json, into OUTDIR/manifest.json, and removes them: the directory
then equals that of the same conversion run as one process, byte for byte. It checks
that all N processes finished, that they converted the same source onto the same mesh
and layout, that every device is covered once, and that a shard written by several
processes (replicas on devices of different hosts) has the same checksum each time.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		return func(pos []string, w io.Writer) error {
			if len(pos) == 0 || pos[0] != "merge" {
				return usagef("manifest takes the subcommand merge")
			}
			if err := needArgs(pos[1:], "OUTDIR"); err != nil {
				return err
			}
			m, err := mergeShards(pos[1])
			if err != nil {
				return fmt.Errorf("%s", libErr(err))
			}
			shards := 0
			for _, t := range m.Tensors {
				shards += len(t.Shards)
			}
			_, err = fmt.Fprintf(w, "%s: %s, %s on %s\n", manifestPath(pos[1]),
				plural(int64(len(m.Tensors)), "tensor"), plural(int64(shards), "shard file"), plural(int64(len(m.Devices)), "device"))
			return err
		}
	},
}
