package main

import (
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/store"
)

// writeShards writes a sharded conversion to OUTDIR: a directory, or a bucket
// prefix (s3://, gs://).
func writeShards(job *sharding.Job, out string) (*sharding.Manifest, error) {
	if store.IsURL(out) {
		return job.WriteURL(out)
	}
	return job.WriteDir(out)
}

// mergeShards is manifest merge on a directory or a bucket prefix.
func mergeShards(out string) (*sharding.Manifest, error) {
	if store.IsURL(out) {
		return sharding.MergeURL(out)
	}
	return sharding.Merge(out)
}

// manifestPath names OUTDIR's manifest.json.
func manifestPath(out string) string {
	if store.IsURL(out) {
		return strings.TrimSuffix(out, "/") + "/" + sharding.ManifestName
	}
	return filepath.Join(out, sharding.ManifestName)
}
