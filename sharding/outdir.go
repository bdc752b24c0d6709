package sharding

import (
	"io"
	"os"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// The verbs on a finished conversion's OUTDIR, a directory or a bucket prefix (s3://,
// gs://), as the CLI's manifest merge, verify and gather take it.

// OutdirManifest names OUTDIR's manifest.json.
func OutdirManifest(out string) string { return outputOf(out).manifestName() }

// MergeOutdir is manifest merge on a directory (MergeWith) or a bucket prefix
// (MergeURL, which always checks every checksum).
func MergeOutdir(out string, opt MergeOptions) (*manifest.Manifest, error) {
	return outputOf(out).merge(opt)
}

// Outdir is a finished conversion's OUTDIR opened for reading: a directory, or a
// bucket prefix whose objects verify, gather and Python's Sharded read by ranges.
type Outdir struct {
	Name string // OUTDIR as given
	Dir  string // where the images are files: Name, or "" for a bucket
	// Progress, when set, hears how far Verify and GatherTo (GatherFile) have got.
	Progress Progress
	// Temps, when set, hears of the temporary file GatherFile writes its file through,
	// so that a command can remove it on a signal.
	Temps convert.Temps
}

// OpenOutdir opens OUTDIR out, reading a bucket's manifest.json up front so that a
// missing bucket, prefix or manifest is one error naming the URL.
func OpenOutdir(out string) (*Outdir, error) {
	o := outputOf(out)
	if err := o.ready(); err != nil {
		return nil, &ConvertError{Name: out, Err: err}
	}
	return &Outdir{Name: out, Dir: o.local()}, nil
}

// Manifest reads OUTDIR's manifest.json.
func (o *Outdir) Manifest() (*manifest.Manifest, error) {
	return ReadManifestAt(o.Name)
}

// Verify is Verify of the conversion; source "" is the manifest's. A report without
// problems has an empty Problems, not nil (JSON's [], as Python's and the command's
// --json print).
func (o *Outdir) Verify(source string) (*Report, error) {
	r, err := verify(o.Name, source, orNone(o.Progress))
	if r != nil && r.Problems == nil {
		r.Problems = []Problem{}
	}
	return r, err
}

// CheckGatherOut refuses an OUT that is the checkpoint the images were made from:
// the gathered arrays are in the images' dtype (bf16, say), so replacing an f32
// source with them loses it, and verify reads it as the truth.
func (o *Outdir) CheckGatherOut(out string) error {
	m, err := ReadManifestAt(o.Name)
	if err != nil || m.Source == "" {
		return nil // Gather reports a bad manifest
	}
	src, err1 := os.Stat(m.Source)
	dst, err2 := os.Stat(out)
	if err1 == nil && err2 == nil && os.SameFile(src, dst) {
		return usage("OUT %s is %s, the checkpoint the images were made from; write to another file", out, m.Source)
	}
	return nil
}

// GatherTo is GatherTo of the conversion.
func (o *Outdir) GatherTo(w io.Writer) (*manifest.Manifest, error) {
	return gatherTo(w, o.Name, orNone(o.Progress))
}

// VerifyOutdir verifies the conversion in OUTDIR out (see Outdir.Verify).
func VerifyOutdir(out, source string) (*Report, error) {
	o, err := OpenOutdir(out)
	if err != nil {
		return nil, err
	}
	return o.Verify(source)
}

// GatherOutdir gathers the conversion in OUTDIR out into the .safetensors file
// file (see Outdir.GatherFile; "-" and /dev/stdout stream to os.Stdout).
func GatherOutdir(out, file string) (*manifest.Manifest, error) {
	if !convert.IsStream(file) && !strings.HasSuffix(strings.ToLower(file), ".safetensors") {
		return nil, usage("OUT %s must be a .safetensors file", file)
	}
	o, err := OpenOutdir(out)
	if err != nil {
		return nil, err
	}
	return o.GatherFile(file, nil)
}

// GatherFile gathers the conversion into file, written as `tpulayout convert` writes
// OUT (convert.Job.WriteOutput): to a temporary file renamed into place (a symlink at
// its target), or streamed into a FIFO, a character device, a descriptor such as
// /dev/fd/N, or for "-" and /dev/stdout into stdout (nil: os.Stdout). A file that is
// the checkpoint the images were made from is refused (CheckGatherOut), and so is a
// bucket URL.
func (o *Outdir) GatherFile(file string, stdout io.Writer) (*manifest.Manifest, error) {
	if err := locate(file).gatherOut(); err != nil {
		return nil, err
	}
	if err := o.CheckGatherOut(file); err != nil {
		return nil, err
	}
	var m *manifest.Manifest
	var inner error
	j := convert.Job{Out: file, Stdout: stdout, Temps: o.Temps}
	err := j.WriteOutput(func(w convert.ImageWriter) error {
		m, inner = o.GatherTo(w)
		return inner
	})
	switch {
	case err == nil:
		return m, nil
	case err == inner:
		return nil, err
	}
	return nil, &ConvertError{Field: "Out", format: "cannot write OUT %s: %s", args: []any{file, fileCause{err}}, cause: err}
}
