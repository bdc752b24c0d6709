package sharding

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/store"
)

// output is a conversion's OUTDIR as ConvertOptions.Out (or the OUTDIR of verify,
// gather and manifest merge) names it: a directory (dirOutput) or a bucket prefix
// (bucketOutput). A conversion writes the job through it; verify and gather read
// through the outDir it opens; manifest merge joins the partial manifests in it.
type output interface {
	write(j *shardJob) (*manifest.Manifest, error)
	// replaceable reports whether Force can replace an earlier conversion there.
	replaceable() bool
	// reader opens it for reading.
	reader() (outDir, error)
	// ready fails where a conversion is not there to read, when that can be told up
	// front: a bucket prefix's manifest.json is read (a directory's is not).
	ready() error
	// local is the directory that holds the images as files, or "" (a bucket).
	local() string
	// manifestName names its manifest.json.
	manifestName() string
	// merge joins the partial manifests in it (see MergeWith and MergeURL).
	merge(opt MergeOptions) (*manifest.Manifest, error)
}

// location is a name that the job reads or writes: a local path (localName) or a
// bucket URL, s3:// or gs:// (bucketName).
type location interface {
	// output is it as a conversion's OUTDIR.
	output() output
	// checkpoint is it as a checkpoint to read.
	checkpoint() (ckptSource, error)
	// gatherOut fails where it cannot be the file that gather writes.
	gatherOut() error
}

// locate is the location that name names: the one place that tells a bucket URL
// from a local path.
func locate(name string) location {
	if store.IsURL(name) {
		return bucketName(name)
	}
	return localName(name)
}

// outputOf is the output that out names.
func outputOf(out string) output { return locate(out).output() }

// localName is a local path (or a file:// URL, for a checkpoint).
type localName string

func (n localName) output() output { return dirOutput(n) }

func (n localName) checkpoint() (ckptSource, error) { return openLocalSource(string(n)) }

func (localName) gatherOut() error { return nil }

// bucketName is a bucket URL.
type bucketName string

func (n bucketName) output() output { return bucketOutput(n) }

func (n bucketName) checkpoint() (ckptSource, error) { return openBucketSource(string(n)) }

func (n bucketName) gatherOut() error {
	return usage("OUT %s is a bucket URL, which gather does not write: give a local .safetensors file, or - for standard output (OUTDIR may be a bucket URL)", string(n))
}

// dirOutput is a directory (a symlink to one: its target, when written).
type dirOutput string

func (d dirOutput) write(j *shardJob) (*manifest.Manifest, error) {
	return j.writeDir(buffer.LinkTarget(string(d)))
}

func (dirOutput) replaceable() bool { return true }

func (d dirOutput) reader() (outDir, error) { return dirOut(d), nil }

func (dirOutput) ready() error { return nil }

func (d dirOutput) local() string { return string(d) }

func (d dirOutput) manifestName() string { return filepath.Join(string(d), manifest.FileName) }

func (d dirOutput) merge(opt MergeOptions) (*manifest.Manifest, error) {
	return MergeWith(string(d), opt)
}

// bucketOutput is a bucket URL, s3:// or gs://.
type bucketOutput string

func (b bucketOutput) write(j *shardJob) (*manifest.Manifest, error) { return j.writeURL(string(b)) }

func (bucketOutput) replaceable() bool { return false }

func (b bucketOutput) reader() (outDir, error) {
	ctx := context.Background()
	bk, key, err := store.Open(ctx, string(b))
	if err != nil {
		return nil, err
	}
	return bucketOut{ctx: ctx, b: bk, prefix: dirPrefix(key), ra: newAheadState()}, nil
}

func (b bucketOutput) ready() error {
	r, err := b.reader()
	if err == nil {
		_, err = r.manifest()
	}
	return err
}

func (bucketOutput) local() string { return "" }

func (b bucketOutput) manifestName() string {
	return strings.TrimSuffix(string(b), "/") + "/" + manifest.FileName
}

// merge always checks every checksum (MergeURL).
func (b bucketOutput) merge(MergeOptions) (*manifest.Manifest, error) { return MergeURL(string(b)) }
