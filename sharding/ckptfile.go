package sharding

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/store"
)

// ckptFile is where the bytes of one file of a checkpoint come from: a local file,
// mapped (localCkpt), or an object in a bucket read by ranges (objectCkpt). The
// checkpoint's source (ckptSource) gives it; the job only calls it.
type ckptFile interface {
	// source opens tensor t of the file for gathering.
	source(t TensorEntry) (source, error)
	// aheadSource returns a source of t whose windows can be announced and fetched
	// ahead (see prefetch.go), or nil where reads need no fetching ahead.
	aheadSource(t TensorEntry) *remoteSource
	// bands says how the file's tensors are best converted: band bytes of image
	// at a time, with opts, and with fit, bands narrowed to the read buffers
	// (fitSteps).
	bands(opts []relayout.Option) (band int64, _ []relayout.Option, fit bool)
	// version identifies the file's bytes.
	version() string
	// fingerprint returns the file's fingerprint (see manifest.Source) and size.
	fingerprint() (string, int64, error)
}

// file returns where the bytes of f, a file of c, come from.
func (c *Checkpoint) file(f *safetensors.File) ckptFile { return c.files[f] }

// localCkpt is a checkpoint file on a local disk, whose tensors are mapped.
type localCkpt struct{ sf *safetensors.File }

func (l localCkpt) source(t TensorEntry) (source, error) {
	b, err := l.sf.Read(t.Name)
	if err != nil {
		return nil, err
	}
	return mappedSource{b}, nil
}

func (localCkpt) aheadSource(TensorEntry) *remoteSource { return nil }

// Half bands: up to three are held at once (one converting, two in lanes), so
// memory stays near what one band at a time held.
func (localCkpt) bands(opts []relayout.Option) (int64, []relayout.Option, bool) {
	return BandBytes / 2, opts, false
}

func (l localCkpt) version() string {
	if st, err := os.Stat(l.sf.Path); err == nil {
		return fmt.Sprintf("%d@%d", st.Size(), st.ModTime().UnixNano())
	}
	return ""
}

func (l localCkpt) fingerprint() (string, int64, error) { return fingerprintFile(l.sf.Path) }

// objectCkpt is a checkpoint file in a bucket, read by ranges, whose fingerprint is
// sampled from its reads (see fpsample.go).
type objectCkpt struct {
	o      *store.Object
	sample *fpSampler // nil: none taken yet
}

func (f *objectCkpt) source(t TensorEntry) (source, error) { return f.aheadSource(t), nil }

func (f *objectCkpt) aheadSource(t TensorEntry) *remoteSource {
	return &remoteSource{obj: f.o, base: t.Offset, shape: t.Shape}
}

// One goroutine a band: the reads, the server (on the same machine, often) and the
// lanes keep the cores busy, and a second worker's half made the first wait
// spinning (9% of a conversion's CPU from versitygw).
func (*objectCkpt) bands(opts []relayout.Option) (int64, []relayout.Option, bool) {
	return RemoteBandBytes, append([]relayout.Option{relayout.WithWorkers(1)}, opts...), true
}

func (f *objectCkpt) version() string { return f.o.Attrs().Version }

// fingerprint is sampled from the object's reads since it was opened, the rest read
// now.
func (f *objectCkpt) fingerprint() (string, int64, error) {
	s := f.sample
	if s == nil {
		s = newFPSampler(f.o.Size(), new(atomic.Int64))
	}
	fp, err := s.sum(f.o)
	return fp, f.o.Size(), err
}
