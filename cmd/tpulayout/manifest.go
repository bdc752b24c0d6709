package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding"
)

var manifestVerb = &verb{
	name:     "manifest",
	synopsis: "merge OUTDIR",
	subverbs: []string{"merge"},
	summary:  "merge the partial manifests of a sharded conversion run as N processes",
	detail: `Manifest merge combines the partial manifests that the N processes of a sharded
conversion (tpulayout convert … --mesh … --process I/N OUTDIR) wrote into OUTDIR,
manifest.process-I-of-N.json, into OUTDIR/manifest.json, and removes them: the directory
then equals that of the same conversion run as one process, byte for byte. It checks
that all N processes finished (and no manifest of a process I ≥ N is there), that they
read the same source (each source file's size and a fingerprint of its contents) and
converted it onto the same mesh and layout, that every device is covered once, that a
shard written by several processes (replicas on devices of different hosts) has the
same checksum each time, that each tensor's shards are where its spec puts them, and
that every listed file is there with its size and checksum (--quick: sizes only);
partial manifests of different checksums (convert --checksum) do not merge. It
removes the temporaries a killed process left and refuses any other file that no
manifest lists. verify compares the images with the source, element by element.
Progress goes to stderr when it is a terminal, or with --progress.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		quick := fs.Bool("quick", false, "check the shard files' sizes only, not their checksums")
		asJSON := fs.Bool("json", false, "print the merged manifest as JSON")
		progress := progressFlag(fs)
		return func(pos []string, w io.Writer) error {
			if len(pos) == 0 || pos[0] != "merge" {
				return usagef("manifest takes the subcommand merge")
			}
			if err := needArgs(pos[1:], "OUTDIR"); err != nil {
				return err
			}
			prog := newProgress(*progress, "manifest merge")
			m, err := sharding.MergeOutdir(pos[1], sharding.MergeOptions{Quick: *quick, Progress: prog})
			prog.Done()
			if err != nil {
				return fmt.Errorf("%s", libErr(err))
			}
			if *asJSON {
				return writeJSON(w, m)
			}
			shards := 0
			for _, t := range m.Tensors {
				shards += len(t.Shards)
			}
			_, err = fmt.Fprintf(w, "%s: %s, %s on %s\n", sharding.OutdirManifest(pos[1]),
				report.Plural(int64(len(m.Tensors)), "tensor"), report.Plural(int64(shards), "shard file"), report.Plural(int64(len(m.Devices)), "device"))
			return err
		}
	},
}
