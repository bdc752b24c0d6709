package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
must place every device of the mesh as the spec says, each shard in the file its
index names. OUT is written to a temporary file and renamed (a symbolic link is written
at its target); a FIFO, a character device or /dev/stdout is streamed into.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		durable := syncFlag(fs)
		return func(pos []string, w io.Writer) error {
			defer durable()()
			if err := needArgs(pos, "OUTDIR", "OUT"); err != nil {
				return err
			}
			if !isStream(pos[1]) && !strings.HasSuffix(strings.ToLower(pos[1]), ".safetensors") {
				return usagef("OUT %s must be a .safetensors file", pos[1])
			}
			dir, done, err := fetched(pos[0])
			if err != nil {
				return fmt.Errorf("%s", storeReason(pos[0], err))
			}
			defer done()
			if err := gatherOverSource(dir, pos[1]); err != nil {
				return err
			}
			// As convert's OUT: a symlink is written at its target, a FIFO or
			// /dev/stdout streamed into.
			var m *sharding.Manifest
			var inner error
			err = writeOutput(pos[1], func(f imageWriter) error {
				m, inner = sharding.GatherTo(f, dir)
				return inner
			})
			if err == inner {
				err = inOutdir(err, dir, pos[0])
				inner = err
			}
			if err != nil {
				if err != inner {
					return fmt.Errorf("cannot write OUT %s: %s", pos[1], fileErr(err))
				}
				return fmt.Errorf("%s", libErr(err))
			}
			if isStdout(pos[1]) { // stdout holds the file alone
				return nil
			}
			_, err = fmt.Fprintf(w, "%s: %s\n", pos[1], plural(int64(len(m.Tensors)), "tensor"))
			return err
		}
	},
}

// gatherOverSource refuses an OUT that is the checkpoint the images were made from: the
// gathered arrays are in the images' dtype (bf16, say), so replacing an f32 source with
// them loses it, and verify reads it as the truth.
func gatherOverSource(dir, out string) error {
	m, err := sharding.ReadManifest(filepath.Join(dir, sharding.ManifestName))
	if err != nil || m.Source == "" {
		return nil // Gather reports a bad manifest
	}
	src, err1 := os.Stat(m.Source)
	dst, err2 := os.Stat(out)
	if err1 == nil && err2 == nil && os.SameFile(src, dst) {
		return usagef("OUT %s is %s, the checkpoint the images were made from; write to another file", out, m.Source)
	}
	return nil
}
