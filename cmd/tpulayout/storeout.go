package main

import (
	"errors"
	"os"
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

// fetched is OUTDIR as a directory: itself, or a bucket prefix's conversion copied
// into a temporary one (see sharding.FetchURL); done removes the copy.
func fetched(out string) (dir string, done func(), err error) {
	if !store.IsURL(out) {
		return out, func() {}, nil
	}
	dir, err = sharding.FetchURL(out)
	if err != nil {
		return "", nil, err
	}
	release := holdSignals()
	trackHeld(dir) // an interrupt removes the copy too
	release()
	return dir, func() { os.RemoveAll(dir); untrack(dir) }, nil
}

// inOutdir names OUTDIR in an error about its copy dir.
func inOutdir(err error, dir, out string) error {
	if err == nil || dir == out {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), dir, strings.TrimSuffix(out, "/")))
}
