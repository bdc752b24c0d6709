package sharding

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/store"
)

// FetchURL copies a finished conversion under a bucket URL (its manifest.json and
// every image that lists) into a new temporary directory, for readers that need files
// (verify, gather and Python's Sharded read a bucket by ranges); remove it when done. It fails if the manifest is missing (the conversion did not
// finish) or an image is not the size the manifest says.
func FetchURL(out string) (string, error) {
	ctx := context.Background()
	b, key, err := store.Open(ctx, out)
	if err != nil {
		return "", err
	}
	prefix := dirPrefix(key)
	js, err := b.ReadAll(ctx, prefix+ManifestName)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "tpulayout-outdir-*")
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ManifestName), js, 0o644); err != nil {
		return fail(err)
	}
	m, err := ReadManifest(filepath.Join(tmp, ManifestName))
	if err != nil {
		return fail(fmt.Errorf("%s: %w", b.URL(prefix+ManifestName), err))
	}
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			if strings.Contains(s.File, "..") || strings.HasPrefix(s.File, "/") {
				return fail(fmt.Errorf("sharding: %s lists file %q, which is not under it", b.URL(prefix+ManifestName), s.File))
			}
			o, err := b.Object(ctx, prefix+s.File)
			if err != nil {
				return fail(err)
			}
			if o.Size() != s.Bytes {
				return fail(fmt.Errorf("sharding: %s is %d bytes, the manifest says %d", o.URL(), o.Size(), s.Bytes))
			}
			p := filepath.Join(tmp, filepath.FromSlash(s.File))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fail(err)
			}
			f, err := os.Create(p)
			if err != nil {
				return fail(err)
			}
			_, err = io.Copy(f, io.NewSectionReader(o, 0, o.Size()))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fail(err)
			}
		}
	}
	return tmp, nil
}

// ReadImageURL reads the image rel of the finished conversion under the bucket URL
// out into p, which is as long as the manifest says the image is, by ranges of up to
// 16 MiB, RemoteInFlight at once: nothing is copied to local disk (Python's Sharded
// reads a bucket's images this way). An object of another size is an error naming it
// and both sizes.
func ReadImageURL(out, rel string, p []byte) error {
	ctx := context.Background()
	b, key, err := store.Open(ctx, out)
	if err != nil {
		return err
	}
	prefix := dirPrefix(key)
	if rel == "" || strings.Contains(rel, "..") || strings.HasPrefix(rel, "/") {
		return fmt.Errorf("sharding: %q is not a file under %s", rel, b.URL(prefix))
	}
	o, err := b.Object(ctx, prefix+rel)
	if err != nil {
		return err
	}
	if o.Size() != int64(len(p)) {
		return fmt.Errorf("sharding: %s is %d bytes, the manifest says %d", o.URL(), o.Size(), len(p))
	}
	var rs []store.Range
	for at := int64(0); at < int64(len(p)); at += aheadSpan {
		rs = append(rs, store.Range{Off: at, Buf: p[at:min(at+aheadSpan, int64(len(p)))]})
	}
	return o.ReadRanges(rs, RemoteInFlight)
}
