package sharding

// This file writes a conversion's output to a bucket (s3://, gs://): each shard
// image one object, with its manifest.Checksum (of the manifest's algorithm, under its name)
// and the conversion's fingerprint in its metadata, and its CRC-32C handed to the
// service, which refuses an upload whose bytes do not match it; the manifest last,
// so its presence means the rest is complete. A rerun (of a killed process, say)
// skips the shards already there with the right size and fingerprint. Objects under
// the prefix that tpulayout did not write stop the conversion before anything is
// written.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/store"
)

// Metadata keys of the objects a conversion writes; the checksum's key is its
// algorithm's name (ChecksumCRC32C, ChecksumSHA256).
const (
	metaSHA256 = manifest.SHA256 // the manifest's own
	metaJob    = "tpulayout-job" // the fingerprint of the conversion and file
)

// bucketSink writes a job's files as objects under prefix in b.
type bucketSink struct {
	ctx    context.Context
	b      *store.Bucket
	prefix string            // ends in "/" (or is empty: the bucket's root)
	fp     map[string]string // fingerprint by file name
	found  map[string]store.Attrs
	opt    *jobOptions
	sum    manifest.Checksum // the job's
	stage  *staging          // where images wait for their upload
}

// present returns the checksums of files when every one is already in the bucket
// from an earlier run of this same conversion (right fingerprint and size); nil
// otherwise.
func (s *bucketSink) present(files []string) ([]string, error) {
	sums := make([]string, len(files))
	for i, f := range files {
		a, ok := s.found[f]
		if !ok || a.Metadata[metaJob] != s.fp[f] || !s.sum.Valid(a.Metadata[s.sum.Name()]) {
			return nil, nil
		}
		// The metadata is the uploader's word; the bytes must have the manifest.Checksum it
		// gives (an object copied from elsewhere carries its metadata along).
		if msg, err := sameBytes(s.ctx, s.b, a, s.sum, a.Metadata[s.sum.Name()]); err != nil {
			return nil, err
		} else if msg != "" {
			return nil, nil
		}
		sums[i] = a.Metadata[s.sum.Name()]
	}
	return sums, nil
}

func (s *bucketSink) prepare(string) error { return nil } // a bucket has no folders

func (s *bucketSink) flush() error { return nil } // put's uploads are complete

// put spools each file to a temporary local file, then uploads them. The spool is
// kept, rather than streaming each object as it is converted: an upload declares its
// manifest.Checksum before its bytes (GCS's multipart upload, S3's PutObject header; a
// trailing manifest.Checksum fake-gcs-server does not check), and a failed upload is retried
// from the file, not by converting again. hs are the files' hashes of the job's
// manifest.Checksum that write feeds (nil: put hashes); a CRC-32C for the service is that
// hash when the job's manifest.Checksum is CRC-32C, else one more, cheap, beside it.
func (s *bucketSink) put(files []string, hs []hash.Hash, write func(ws []io.Writer) error) (err error) {
	tmps := make([]*os.File, 0, len(files))
	defer func() {
		for _, f := range tmps {
			f.Close()
			os.Remove(f.Name())
			s.opt.untrack(f.Name())
		}
	}()
	ws := make([]io.Writer, len(files))
	own := hs == nil
	if own {
		hs = make([]hash.Hash, len(files))
	}
	crcs := make([]hash.Hash, len(files))
	for i := range files {
		release := s.opt.hold()
		f, err := os.CreateTemp(s.stage.dir, stagedPattern)
		if err == nil {
			s.opt.track(f.Name())
			tmps = append(tmps, f)
		}
		release()
		if err != nil {
			return err
		}
		ws[i] = f
		if own {
			hs[i] = s.sum.New()
			ws[i] = io.MultiWriter(ws[i], hs[i])
		}
		if crcs[i] = hs[i]; s.sum.Name() != manifest.CRC32C {
			crcs[i] = manifest.NewCRC32C()
			ws[i] = io.MultiWriter(ws[i], crcs[i])
		}
	}
	if err := write(ws); err != nil {
		return err
	}
	for i, f := range files {
		st, err := tmps[i].Stat()
		if err != nil {
			return err
		}
		key := s.sum.Name()
		meta := map[string]string{key: s.sum.Hex(hs[i]), metaJob: s.fp[f]}
		crc := crcs[i].Sum(nil)
		if a, ok := s.found[f]; ok && a.Size == st.Size() && a.Metadata[metaJob] == meta[metaJob] && a.Metadata[key] == meta[key] &&
			bytes.Equal(a.CRC32C, crc) {
			continue // already there (the service's CRC-32C of its bytes says so): a group rewritten for another of its shards
		}
		if err := s.b.PutFileCRC32C(s.ctx, s.prefix+f, tmps[i], st.Size(), meta, crc); err != nil {
			return err
		}
	}
	return nil
}

// WriteURL writes a prepared job under the bucket URL out (s3://bucket/prefix, or
// gs://): one object per shard image, then the manifest (manifest.json, or this
// process's partial manifest, which MergeURL joins). The prefix may hold only
// objects of this conversion: a rerun skips the shards already written, with the
// right size and fingerprint, and rewrites the others.
func (j *shardJob) writeURL(out string) (*manifest.Manifest, error) {
	ctx := context.Background()
	b, key, err := store.Open(ctx, out)
	if err != nil {
		return nil, err
	}
	prefix := dirPrefix(key)
	s := &bucketSink{ctx: ctx, b: b, prefix: prefix, fp: map[string]string{}, found: map[string]store.Attrs{}, opt: &j.opt, sum: j.sum}
	if err := s.plan(j); err != nil {
		return nil, err
	}
	if s.stage, err = newStaging(); err != nil {
		return nil, err
	}
	release := j.opt.hold()
	j.opt.track(s.stage.dir) // removed whole if a signal ends the process
	release()
	defer func() {
		s.stage.close()
		j.opt.untrack(s.stage.dir)
	}()
	return j.write(s)
}

// plan names every file of the conversion (of all processes), fingerprints them,
// and checks what the prefix already holds.
func (s *bucketSink) plan(j *shardJob) error {
	id := sha256.New()
	fmt.Fprintf(id, "source %q to %q mesh %v %v %v processes %d\n", j.opt.Source, j.opt.To,
		j.opt.Mesh.Axes, j.opt.Mesh.Sizes, j.opt.Mesh.Devices, j.opt.Processes)
	for _, t := range j.ckpt.Tensors {
		fmt.Fprintf(id, "tensor %q %s %v at %d-%d of %s\n", t.Name, t.DType, t.Shape, t.Offset, t.End, j.ckpt.version(t))
	}
	job := id.Sum(nil)
	for _, t := range j.tensors {
		for k := range t.pl.Shards {
			f := manifest.ShardFile(t.dir, t.pl.Shards[k].Index)
			h := sha256.New()
			fmt.Fprintf(h, "%x %q %s %s %s %d", job, t.t.Name, t.pl.Spec, t.dst, f, t.plan.footprint)
			s.fp[f] = hex.EncodeToString(h.Sum(nil))
		}
	}
	partial := map[string]bool{}
	if j.opt.Processes > 1 {
		for i := range j.opt.Processes {
			partial[manifest.PartialName(i, j.opt.Processes)] = true
		}
	}
	mine := manifest.PartialName(j.opt.Process, j.opt.Processes)
	as, err := s.b.List(s.ctx, s.prefix)
	if err != nil {
		return err
	}
	var foreign []string
	for _, a := range as {
		rel := strings.TrimPrefix(a.Key, s.prefix)
		switch {
		case rel == manifest.FileName:
			return fmt.Errorf("sharding: %s already holds a complete conversion (%s)", s.b.URL(s.prefix), manifest.FileName)
		case partial[rel]:
			if j.opt.Processes > 1 && rel == mine {
				continue // this process's own, from an earlier run: replaced at the end
			}
			continue
		case s.fp[rel] == "":
			foreign = append(foreign, rel)
			continue
		}
		st, err := s.b.Stat(s.ctx, a.Key)
		if errors.Is(err, store.ErrNotExist) {
			continue // another process's, being replaced
		}
		if err != nil {
			return err
		}
		if st.Metadata[metaJob] == "" {
			foreign = append(foreign, rel)
			continue
		}
		s.found[rel] = st
	}
	if j.opt.Processes > 1 {
		if err := j.checkPartials(s.b.URL(s.prefix), s.partials(as)); err != nil {
			return err
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("sharding: %s holds %d object(s) this conversion did not write, such as %s; write to a new prefix",
			s.b.URL(s.prefix), len(foreign), store.Escape(foreign[0]))
	}
	return nil
}

// partials reads the partial manifests among the listed objects as.
func (s *bucketSink) partials(as []store.Attrs) map[string]partialText {
	out := map[string]partialText{}
	for _, a := range as {
		rel := strings.TrimPrefix(a.Key, s.prefix)
		switch {
		case !manifest.IsPartialName(rel):
		case a.Size > manifest.MaxBytes:
			out[rel] = partialText{err: fmt.Errorf("it has %d bytes, more than the %d a manifest may have", a.Size, manifest.MaxBytes)}
		default:
			b, err := s.b.ReadAll(s.ctx, a.Key)
			out[rel] = partialText{b, err}
		}
	}
	return out
}

// version identifies the bytes of the file that holds t: an object's ETag or
// generation, or a local file's size and modification time.
func (c *Checkpoint) version(t TensorEntry) string {
	return c.file(t.File).version()
}

// MergeURL is Merge for a conversion written under a bucket URL: the partial
// manifests are read from the bucket and checked by Merge, manifest.json is written
// to the bucket, and then the partial manifests are deleted.
func MergeURL(out string) (*manifest.Manifest, error) {
	ctx := context.Background()
	b, key, err := store.Open(ctx, out)
	if err != nil {
		return nil, err
	}
	prefix := dirPrefix(key)
	as, err := b.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "tpulayout-merge-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var parts []string
	for _, a := range as {
		rel := strings.TrimPrefix(a.Key, prefix)
		if !manifest.IsPartialName(rel) {
			continue
		}
		data, err := b.ReadAll(ctx, a.Key)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, rel), data, 0o644); err != nil {
			return nil, err
		}
		parts = append(parts, a.Key)
	}
	m, err := MergeWith(tmp, MergeOptions{files: bucketFiles{ctx: ctx, b: b, prefix: prefix, objects: as}, shown: b.URL(prefix)})
	if err != nil {
		return nil, err
	}
	js, err := os.ReadFile(filepath.Join(tmp, manifest.FileName))
	if err != nil {
		return nil, err
	}
	if err := b.PutFile(ctx, prefix+manifest.FileName, bytes.NewReader(js), int64(len(js)), map[string]string{metaSHA256: sha256Hex(js)}); err != nil {
		return nil, err
	}
	for _, p := range parts {
		if err := b.Delete(ctx, p); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// bucketFiles are the shard files of a merge on a bucket prefix, as its listing gives
// them: each listed one there with its size and bytes of its manifest.Checksum (see
// sameBytes), and nothing else under the prefix but the partial manifests.
type bucketFiles struct {
	ctx     context.Context
	b       *store.Bucket
	prefix  string
	objects []store.Attrs // as listed: S3's listings carry no metadata
}

func (b bucketFiles) check(rel string, ms manifest.Shard, hash bool) string {
	for _, a := range b.objects {
		if a.Key != b.prefix+rel {
			continue
		}
		if a.Size != ms.Bytes {
			return fmt.Sprintf("has %d bytes, the manifest says %d", a.Size, ms.Bytes)
		}
		if !hash {
			return ""
		}
		c, want := ms.Sum()
		msg, err := sameBytes(b.ctx, b.b, a, c, want)
		if err != nil {
			return err.Error()
		}
		return msg
	}
	return "is missing"
}

func (b bucketFiles) has(rel string) bool {
	return slices.ContainsFunc(b.objects, func(a store.Attrs) bool { return a.Key == b.prefix+rel })
}

// sameBytes returns "" when the object a (as listed or stated) holds bytes whose
// manifest.Checksum c is want, else what differs. It trusts no metadata, which whoever
// uploaded the object chose: a crc32c is compared with the one the service computed
// from the bytes (Attrs.CRC32C, stated again where a listing lacks it), and anything
// else, or an object the service gives no CRC-32C for, is read and hashed.
func sameBytes(ctx context.Context, b *store.Bucket, a store.Attrs, c manifest.Checksum, want string) (string, error) {
	if c.Name() == manifest.CRC32C {
		if a.CRC32C == nil {
			st, err := b.Stat(ctx, a.Key)
			if err != nil {
				return "", err
			}
			a.CRC32C = st.CRC32C
		}
		if a.CRC32C != nil {
			if got := hex.EncodeToString(a.CRC32C); got != want {
				return fmt.Sprintf("has crc32c %s (as the service computed it from its bytes), the manifest says %s", got, want), nil
			}
			return "", nil
		}
	}
	o, err := b.Object(ctx, a.Key)
	if err != nil {
		return "", err
	}
	h := c.New()
	if _, err := io.Copy(h, io.NewSectionReader(o, 0, o.Size())); err != nil {
		return "", err
	}
	if got := c.Hex(h); got != want {
		return fmt.Sprintf("has %s %s (read from its bytes), the manifest says %s", c.Name(), got, want), nil
	}
	return "", nil
}

func (b bucketFiles) unlisted(listed map[string]bool) string {
	for _, a := range b.objects {
		rel := strings.TrimPrefix(a.Key, b.prefix)
		if !listed[rel] && !manifest.IsPartialName(rel) {
			return store.Escape(rel) // a server's text, printed
		}
	}
	return ""
}

// dirPrefix is the key prefix of OUTDIR's objects: key with one trailing slash, or ""
// for a bucket's root.
func dirPrefix(key string) string {
	if key = strings.TrimSuffix(key, "/"); key != "" {
		key += "/"
	}
	return key
}
