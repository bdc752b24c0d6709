package sharding

import (
	"context"
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/store"
)

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
