package store

// Tests against the servers of storetest.All: its Fake in every go test, and the real
// servers that .ci/store.sh starts. eachServer and openNew serve the other files too.

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// eachServer runs f as a subtest for each server of storetest.All, with the
// scheme's URLs pointed at it.
func eachServer(t *testing.T, f func(t *testing.T, s storetest.Server)) {
	for _, s := range storetest.All(t) {
		t.Run(s.Name(), func(t *testing.T) {
			s.Point(t, s.Endpoint)
			f(t, s)
		})
	}
}

// openNew opens name in a new bucket of s, and returns the bucket and name's key.
func openNew(t *testing.T, s storetest.Server, name string) (*Bucket, string) {
	t.Helper()
	b, key, err := Open(context.Background(), s.Scheme+"://"+s.NewBucket(t)+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return b, key
}

func TestServerRoundTrip(t *testing.T) {
	eachServer(t, func(t *testing.T, s storetest.Server) {
		ctx := context.Background()
		b, key := openNew(t, s, "dir/x.bin")
		data := make([]byte, 3<<20+17)
		for i := range data {
			data[i] = byte(i * 7 >> 3)
		}
		meta := map[string]string{"sha256": "abc"}
		if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), meta); err != nil {
			t.Fatal(err)
		}
		if err := b.Put(ctx, "dir/y.bin", strings.NewReader("hello"), 5, nil); err != nil {
			t.Fatal(err)
		}
		o, err := b.Object(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if o.Size() != int64(len(data)) || o.Attrs().Metadata["sha256"] != "abc" {
			t.Errorf("attrs %+v", o.Attrs())
		}
		rs := []Range{{0, make([]byte, 1)}, {1 << 20, make([]byte, 1<<20)}, {int64(len(data)) - 100, make([]byte, 100)}}
		if err := o.ReadRanges(rs, 3); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if !bytes.Equal(r.Buf, data[r.Off:r.Off+int64(len(r.Buf))]) {
				t.Errorf("range at %d differs", r.Off)
			}
		}
		as, err := b.List(ctx, "dir/")
		if err != nil || len(as) != 2 || as[0].Key != "dir/x.bin" || as[1].Key != "dir/y.bin" || as[1].Size != 5 {
			t.Errorf("List = %+v, %v", as, err)
		}
		// Replaced by a shorter object: reads of o fail as changed, naming it.
		if err := b.Put(ctx, key, strings.NewReader("short"), 5, nil); err != nil {
			t.Fatal(err)
		}
		_, err = o.ReadAt(make([]byte, 10), 0)
		if err == nil || !strings.Contains(err.Error(), ErrChanged.Error()) || !strings.Contains(err.Error(), b.URL(key)) {
			t.Errorf("read of a replaced object: %v", err)
		}
		if err := b.Delete(ctx, "dir/y.bin"); err != nil {
			t.Fatal(err)
		}
		_, err = b.Stat(ctx, "dir/y.bin")
		if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "dir/y.bin") {
			t.Errorf("Stat of a deleted object: %v", err)
		}
	})
}

func TestServerMissing(t *testing.T) {
	for _, s := range storetest.Servers(t) {
		t.Run(s.Scheme, func(t *testing.T) {
			s.Point(t, s.Endpoint)
			ctx := context.Background()
			b, key, err := Open(ctx, s.Scheme+"://no-such-bucket-tpl/x.bin")
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Object(ctx, key)
			if err == nil || !strings.Contains(err.Error(), s.Scheme+`://no-such-bucket-tpl/x.bin: bucket "no-such-bucket-tpl" does not exist`) {
				t.Errorf("missing bucket: %v", err)
			}
		})
	}
}
