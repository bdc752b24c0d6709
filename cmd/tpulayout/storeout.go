package main

import (
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/store"
)

// writeShards writes a sharded conversion to OUTDIR: a directory, or a bucket
// prefix (s3://, gs://).
func writeShards(job *sharding.Job, out string) (*sharding.Manifest, error) {
	if store.IsURL(out) {
		return job.WriteURL(out)
	}
	return job.WriteDir(buffer.LinkTarget(out)) // a symlink OUTDIR: its target, and the link stays
}

// mergeShards is manifest merge on a directory or a bucket prefix.
func mergeShards(out string, opts sharding.MergeOptions) (*sharding.Manifest, error) {
	if store.IsURL(out) {
		return sharding.MergeURL(out)
	}
	return sharding.MergeWith(out, opts)
}

// manifestPath names OUTDIR's manifest.json.
func manifestPath(out string) string {
	if store.IsURL(out) {
		return strings.TrimSuffix(out, "/") + "/" + sharding.ManifestName
	}
	return filepath.Join(out, sharding.ManifestName)
}

// bucketManifest reads a bucket OUTDIR's manifest.json up front, so that a missing
// bucket, prefix or manifest is one line naming the URL; verify and gather then read
// the objects by ranges.
func bucketManifest(out string) error {
	if !store.IsURL(out) {
		return nil
	}
	_, err := sharding.ReadManifestAt(out)
	return err
}
