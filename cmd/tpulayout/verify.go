package main

import (
	"flag"
	"fmt"
	"io"

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
SHA-256, and each image's contents, read back to row-major and compared with the
source's window converted to the image's dtype (and a sample of elements through the
layout's index math). Exit status 1 lists what differs.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		source := fs.String("source", "", "the source checkpoint `CKPT` (default: the manifest's source)")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "OUTDIR"); err != nil {
				return err
			}
			if err := bucketManifest(pos[0]); err != nil {
				return fmt.Errorf("%s", storeReason(pos[0], err))
			}
			r, err := sharding.Verify(pos[0], *source)
			if err != nil {
				return fmt.Errorf("%s", libErr(err))
			}
			for _, p := range r.Problems {
				fmt.Fprintf(w, "FAIL  %s\n", p)
			}
			against := r.Manifest.Source
			if *source != "" { // the file compared with, not the one the manifest names
				against = *source
			}
			fmt.Fprintf(w, "%s, %s, %s on %s checked against %s\n", plural(int64(r.Tensors), "tensor"),
				plural(int64(r.Shards), "shard file"), sizeText(r.Bytes), plural(int64(len(r.Manifest.Devices)), "device"), against)
			if len(r.Problems) > 0 {
				return &mismatch{fmt.Errorf("%s found", plural(int64(len(r.Problems)), "problem"))}
			}
			_, err = fmt.Fprintln(w, "result: OK")
			return err
		}
	},
}
