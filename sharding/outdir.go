package sharding

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/store"
)

// The verbs on a finished conversion's OUTDIR, a directory or a bucket prefix (s3://,
// gs://), as the CLI's manifest merge, verify and gather take it.

// Cleanup lets a command remove what a call leaves while a signal stops it; see
// Options' Hold, Track and Untrack. The zero value does nothing.
type Cleanup struct {
	Hold    func() (release func())
	Track   func(path string)
	Untrack func(path string)
}

// OutdirManifest names OUTDIR's manifest.json.
func OutdirManifest(out string) string {
	if store.IsURL(out) {
		return strings.TrimSuffix(out, "/") + "/" + ManifestName
	}
	return filepath.Join(out, ManifestName)
}

// MergeOutdir is manifest merge on a directory (MergeWith) or a bucket prefix
// (MergeURL, which always checks every SHA-256).
func MergeOutdir(out string, opt MergeOptions) (*Manifest, error) {
	if store.IsURL(out) {
		return MergeURL(out)
	}
	return MergeWith(out, opt)
}

// Outdir is a finished conversion's OUTDIR opened for reading: a directory, or a
// bucket prefix whose objects verify and gather read by ranges. Fetch copies a
// bucket's conversion into a temporary directory for readers that need files (Python's
// Sharded reads by ranges instead: ReadImageURL); Close removes it. Errors name
// OUTDIR, not the copy.
type Outdir struct {
	Name string // OUTDIR as given
	Dir  string // where the images are files: Name, a bucket's copy after Fetch, or "" for a bucket
	c    Options
}

// OpenOutdir opens OUTDIR out, reading a bucket's manifest.json up front so that a
// missing bucket, prefix or manifest is one error naming the URL; c tracks a copy
// that Fetch makes until Close.
func OpenOutdir(out string, c Cleanup) (*Outdir, error) {
	o := &Outdir{Name: out, Dir: out, c: Options{Hold: c.Hold, Track: c.Track, Untrack: c.Untrack}}
	if !store.IsURL(out) {
		return o, nil
	}
	if _, err := ReadManifestAt(out); err != nil {
		return nil, &ConvertError{Name: out, Err: err}
	}
	o.Dir = ""
	return o, nil
}

// Fetch copies a bucket's conversion (its manifest and every image it lists) into a
// temporary directory, which Dir then names; a directory stays where it is.
func (o *Outdir) Fetch() error {
	if o.Dir != "" {
		return nil
	}
	dir, err := FetchURL(o.Name)
	if err != nil {
		return &ConvertError{Name: o.Name, Err: err}
	}
	release := o.c.hold()
	o.Dir = dir
	o.c.track(dir) // an interrupt removes the copy too
	release()
	return nil
}

// Close removes a bucket's local copy.
func (o *Outdir) Close() {
	if o.Dir != "" && o.Dir != o.Name {
		os.RemoveAll(o.Dir)
		o.c.untrack(o.Dir)
	}
}

// named names OUTDIR rather than its local copy in err.
func (o *Outdir) named(err error) error {
	if err == nil || o.Dir == "" || o.Dir == o.Name {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), o.Dir, strings.TrimSuffix(o.Name, "/")))
}

// at is where the conversion is read: the copy after Fetch, else OUTDIR itself.
func (o *Outdir) at() string {
	if o.Dir != "" {
		return o.Dir
	}
	return o.Name
}

// Manifest reads OUTDIR's manifest.json.
func (o *Outdir) Manifest() (*Manifest, error) {
	m, err := ReadManifestAt(o.at())
	return m, o.named(err)
}

// Verify is Verify of the conversion; source "" is the manifest's.
func (o *Outdir) Verify(source string) (*Report, error) {
	r, err := Verify(o.at(), source)
	if err != nil {
		return nil, o.named(err)
	}
	return r, nil
}

// CheckGatherOut refuses an OUT that is the checkpoint the images were made from:
// the gathered arrays are in the images' dtype (bf16, say), so replacing an f32
// source with them loses it, and verify reads it as the truth.
func (o *Outdir) CheckGatherOut(out string) error {
	m, err := ReadManifestAt(o.at())
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
func (o *Outdir) GatherTo(w io.Writer) (*Manifest, error) {
	m, err := GatherTo(w, o.at())
	if err != nil {
		return nil, o.named(err)
	}
	return m, nil
}

// VerifyOutdir verifies the conversion in OUTDIR out (see Outdir.Verify).
func VerifyOutdir(out, source string, c Cleanup) (*Report, error) {
	o, err := OpenOutdir(out, c)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	r, err := o.Verify(source)
	if r != nil && r.Problems == nil {
		r.Problems = []Problem{} // JSON's [], as Python's and the command's --json print
	}
	return r, err
}

// GatherOutdir gathers the conversion in OUTDIR out into the .safetensors file
// file (see Outdir.GatherFile; "-" and /dev/stdout stream to os.Stdout).
func GatherOutdir(out, file string, c Cleanup) (*Manifest, error) {
	if !convert.IsStream(file) && !strings.HasSuffix(strings.ToLower(file), ".safetensors") {
		return nil, usage("OUT %s must be a .safetensors file", file)
	}
	o, err := OpenOutdir(out, c)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return o.GatherFile(file, nil)
}

// GatherFile gathers the conversion into file, written as `tpulayout convert` writes
// OUT (convert.Job.WriteOutput): to a temporary file renamed into place (a symlink at
// its target), or streamed into a FIFO, a character device, a descriptor such as
// /dev/fd/N, or for "-" and /dev/stdout into stdout (nil: os.Stdout). A file that is
// the checkpoint the images were made from is refused (CheckGatherOut).
func (o *Outdir) GatherFile(file string, stdout io.Writer) (*Manifest, error) {
	if err := o.CheckGatherOut(file); err != nil {
		return nil, err
	}
	var m *Manifest
	var inner error
	j := convert.Job{Out: file, Stdout: stdout, Names: convert.FlagNames}
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
	return nil, &ConvertError{Msg: "cannot write OUT " + file + ": " + convert.FileErr(err)}
}
