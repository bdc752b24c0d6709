package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding"
)

var verifyVerb = &verb{
	name:     "verify",
	synopsis: "OUTDIR [--source CKPT]",
	summary:  "check a sharded conversion's images against its manifest and source",
	detail: `Verify re-reads every device image of a sharded conversion in OUTDIR (made by
tpulayout convert … --mesh …) and checks it against OUTDIR/manifest.json and the source
checkpoint (the manifest's source, or --source): each tensor's placement is recomputed
from its spec and the mesh, each device's file list checked, each file's size and
checksum (the manifest's: CRC-32C or SHA-256), and each image's contents, read back to row-major and compared with the
source's window converted to the image's dtype (and a sample of elements through the
layout's index math). Exit status 1 lists what differs. Progress goes to stderr
when it is a terminal, or with --progress.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		source := fs.String("source", "", "the source checkpoint `CKPT` (default: the manifest's source)")
		asJSON := fs.Bool("json", false, "print the report (tensors, shards, bytes, problems, manifest) as JSON")
		progress := progressFlag(fs)
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "OUTDIR"); err != nil {
				return err
			}
			o, err := sharding.OpenOutdir(pos[0])
			if err != nil {
				return shardErr(err)
			}
			prog := newProgress(*progress, "verify")
			o.Progress = prog
			r, err := o.Verify(*source)
			prog.Done()
			if err != nil {
				return shardErr(err)
			}
			if *asJSON {
				err = writeJSON(w, r)
			} else {
				err = r.WriteText(w, *source)
			}
			if err == nil && len(r.Problems) > 0 {
				err = &mismatch{fmt.Errorf("%s found", report.Plural(int64(len(r.Problems)), "problem"))}
			}
			return err
		}
	},
}
