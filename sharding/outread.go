package sharding

// This file is where verify and gather read a finished conversion from: a
// directory, or a bucket prefix (s3://, gs://) whose objects are read by ranges,
// with nothing copied to local disk; and the source checkpoint as verify reads it,
// mapped from a file or by ranges from a bucket.

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/store"
)

// outDir holds a conversion's files, named as its manifest names them.
type outDir interface {
	open(rel string) (outFile, error)
	// unlisted returns the files under it that listed does not name, sorted.
	unlisted(listed map[string]bool) []string
	// path is rel's local path, or "" in a bucket (whose objects cannot be mapped).
	path(rel string) string
	manifest() (*manifest.Manifest, error)
	// ahead has the files' reads, when they are made in this order, served from
	// reads made ahead (see outahead.go; a directory's are not); stop ends it.
	ahead(reads []fileRange) (stop func())
	// bandBytes is the size of the bands a gather reads its images in.
	bandBytes() int64
}

// outFile is one of its files opened for reading.
type outFile interface {
	io.ReaderAt
	Size() int64
	Close() error
}

// openOutDir opens out, a bucket URL or a directory, for reading.
func openOutDir(out string) (outDir, error) { return outputOf(out).reader() }

type dirOut string

func (d dirOut) path(rel string) string { return filepath.Join(string(d), filepath.FromSlash(rel)) }

func (d dirOut) open(rel string) (outFile, error) {
	f, err := os.Open(d.path(rel))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return sizedFile{f, st.Size()}, nil
}

func (d dirOut) unlisted(listed map[string]bool) []string {
	return unlistedFiles(string(d), listed, false)
}

func (d dirOut) manifest() (*manifest.Manifest, error) {
	return ReadManifest(d.path(manifest.FileName))
}

func (d dirOut) ahead([]fileRange) func() { return func() {} }

func (dirOut) bandBytes() int64 { return gatherBandBytes }

type sizedFile struct {
	*os.File
	size int64
}

func (f sizedFile) Size() int64 { return f.size }

// bucketOut is a conversion under a bucket prefix.
type bucketOut struct {
	ctx    context.Context
	b      *store.Bucket
	prefix string      // ends in "/", or is empty
	ra     *aheadState // the reads announced, if any
}

func (o bucketOut) path(string) string { return "" }

func (bucketOut) bandBytes() int64 { return gatherBucketBandBytes }

func (o bucketOut) open(rel string) (outFile, error) {
	if o.ra != nil {
		if ra := o.ra.cur.Load(); ra != nil { // opened once, by whichever comes first
			obj, err := ra.object(rel)
			if err != nil {
				return nil, err
			}
			return aheadFile{objectFile{obj}, rel, o.ra}, nil
		}
	}
	obj, err := o.b.Object(o.ctx, o.prefix+rel)
	if err != nil {
		return nil, err
	}
	if o.ra != nil {
		return aheadFile{objectFile{obj}, rel, o.ra}, nil
	}
	return objectFile{obj}, nil
}

type objectFile struct{ *store.Object }

func (objectFile) Close() error { return nil }

// unlisted lists the prefix: an object is unlisted when neither it nor the
// directory it is in (for a directory's listing) is named.
func (o bucketOut) unlisted(listed map[string]bool) []string {
	as, err := o.b.List(o.ctx, o.prefix)
	if err != nil {
		return []string{err.Error()}
	}
	var found []string
	for _, a := range as {
		if rel := strings.TrimPrefix(a.Key, o.prefix); !listed[rel] {
			found = append(found, store.Escape(rel)) // a server's text, printed
		}
	}
	return found
}

func (o bucketOut) manifest() (*manifest.Manifest, error) {
	url := o.b.URL(o.prefix + manifest.FileName)
	f, err := o.open(manifest.FileName)
	if err != nil {
		return nil, err
	}
	if f.Size() > manifest.MaxBytes {
		return nil, fmt.Errorf("sharding: manifest %s has %d bytes, more than the %d a manifest may have", url, f.Size(), manifest.MaxBytes)
	}
	data := make([]byte, f.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, err
	}
	m, err := manifest.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("sharding: manifest %s: %w", url, err)
	}
	return m, nil
}

// verifySource is a tensor of the checkpoint as verify reads it: windows (as the
// conversion gathers them) and single elements, through the file's mapping or by
// ranges of a bucket's object.
type verifySource struct {
	source
	dt     layout.DType
	shape  []int64
	mapped *buffer.Buffer // nil in a bucket
}

func (c *Checkpoint) verifySource(t TensorEntry) (*verifySource, error) {
	src, err := c.source(t)
	if err != nil {
		return nil, err
	}
	v := &verifySource{source: src, dt: t.DType, shape: t.Shape}
	if m, ok := src.(mappedSource); ok {
		v.mapped = m.Buffer
	}
	return v, nil
}

// bitsAt returns the raw bits of the elements at start+idx for each idx of idxs: from
// the mapping (its pages released every 16, as random reads fault in whole pages), or
// read from the bucket, RemoteInFlight at once.
func (v *verifySource) bitsAt(idxs [][]int64, start []int64) ([]uint64, error) {
	out := make([]uint64, len(idxs))
	at := func(idx []int64, i int) []int64 {
		s := make([]int64, len(idx))
		for d := range idx {
			s[d] = idx[d] + start[d]
		}
		return s
	}
	if v.mapped != nil {
		for i, idx := range idxs {
			if i%16 == 0 {
				release(v.mapped)
			}
			out[i] = v.mapped.Bits(at(idx, i))
		}
		release(v.mapped)
		return out, nil
	}
	r := v.source.(*remoteSource)
	eb := int64(v.dt.StorageBits() / 8)
	offs := make([]int64, len(idxs))
	for i, idx := range idxs {
		for d, x := range at(idx, i) {
			offs[i] = offs[i]*v.shape[d] + x
		}
		offs[i] = r.base + offs[i]*eb
	}
	return readElements(r.obj, offs, eb)
}

// readElements reads the eb-byte little-endian elements at the byte offsets offs of
// r, nearby ones in one read as a window's runs are grouped, RemoteInFlight reads at
// once.
func readElements(r io.ReaderAt, offs []int64, eb int64) ([]uint64, error) {
	rs := make([]run, len(offs))
	for i, off := range offs {
		rs[i] = run{off: off, n: eb}
	}
	ps := pieces(mergeRuns(rs))
	bufs := make([][]byte, len(ps))
	errs := make([]error, len(ps))
	sem := make(chan struct{}, max(RemoteInFlight, 1))
	var wg sync.WaitGroup
	for i, p := range ps {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			bufs[i] = make([]byte, p.n)
			_, errs[i] = readAt(r, bufs[i], p.off)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]uint64, len(offs))
	for i, off := range offs {
		k, _ := slices.BinarySearchFunc(ps, off, func(p piece, off int64) int { return cmp.Compare(p.off, off) })
		if k == len(ps) || ps[k].off > off {
			k--
		}
		var b [8]byte
		copy(b[:eb], bufs[k][off-ps[k].off:])
		out[i] = binary.LittleEndian.Uint64(b[:])
	}
	return out, nil
}

// readAt reads all of p from off in r.
func readAt(r io.ReaderAt, p []byte, off int64) (int, error) {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return n, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// verifyStreamed is the rest of verifyShard for an image in a bucket at least
// buffer.MmapThreshold long: read band by band as compareBands asks for it (hashed as
// it comes, in order), the rest then hashed, and the sampled elements read by ranges,
// so memory holds a band rather than the image. It returns the bytes read and what
// is wrong (""); a wrong checksum is said first.
func verifyStreamed(f outFile, ms manifest.Shard, dst layout.Shape, ix *layout.Indexer, src *verifySource, start []int64, vs *vscratch) (int64, string) {
	size := f.Size()
	h := ms.NewHash()
	var next int64 // the bytes before next are hashed
	hashTo := func(end int64) error {
		for next < end {
			buf := grow(&vs.read, min(end-next, 1<<20))
			if _, err := readAt(f, buf, next); err != nil {
				return err
			}
			h.Write(buf)
			next += int64(len(buf))
		}
		return nil
	}
	band := func(off, n int64) ([]byte, error) {
		if err := hashTo(off); err != nil { // bands come in order: nothing to do
			return nil, err
		}
		buf := grow(&vs.img, n)
		if _, err := readAt(f, buf, off); err != nil {
			return nil, err
		}
		if off == next {
			h.Write(buf)
			next += n
		}
		return buf, nil
	}
	var msg string
	if ix.LogicalElements() > 0 {
		msg = compareBands(band, dst, src, start, vs)
	}
	if err := hashTo(size); err != nil {
		return next, err.Error()
	}
	if msg := ms.SumDiffers(h); msg != "" {
		return size, msg
	}
	if msg != "" || ix.LogicalElements() == 0 {
		return size, msg
	}
	// Independently of relayout: a sample of elements through the layout's index math.
	idxs := sampleIndices(dst, size)
	eb := int64(dst.DType.StorageBits() / 8)
	offs := make([]int64, len(idxs))
	for i, idx := range idxs {
		offs[i] = ix.BitOffset(idx) / 8
	}
	got, err := readElements(f, offs, eb)
	if err != nil {
		return size, err.Error()
	}
	want, err := src.bitsAt(idxs, start)
	if err != nil {
		return size, err.Error()
	}
	for i, idx := range idxs {
		if w := buffer.ConvertElement(dst.DType, src.dt, want[i]); got[i] != w {
			return size, fmt.Sprintf("element %v of the shard holds %#x, want %#x (layout index math)", idx, got[i], w)
		}
	}
	return size, ""
}

// releaseAll lets the pages of a mapped source go.
func (v *verifySource) releaseAll() {
	if v.mapped != nil {
		release(v.mapped)
	}
}

// buffers is what buffer.GuardFaults watches: the mapping, if any.
func (v *verifySource) buffers() []*buffer.Buffer {
	if v.mapped != nil {
		return []*buffer.Buffer{v.mapped}
	}
	return nil
}

// ReadManifestAt reads the manifest.json of the conversion in dir: a directory, or a
// bucket URL.
func ReadManifestAt(dir string) (*manifest.Manifest, error) {
	od, err := openOutDir(dir)
	if err != nil {
		return nil, err
	}
	return od.manifest()
}
