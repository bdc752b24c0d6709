package store

import (
	"bytes"
	"context"
	"testing"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestServerConnectionReuse reads 64 ranges, 4 at once, through a proxy that keeps
// connections open: the client reuses them (each body is read to its end, and no
// request asks to close), so it opens about as many as it has reads in flight, not
// one a read. (versitygw itself closes every connection unless started with
// --keep-alive; the proxy stands for a store that does not.)
func TestServerConnectionReuse(t *testing.T) {
	for _, s := range storetest.All(t) {
		t.Run(s.Name(), func(t *testing.T) {
			s.Point(t, s.Endpoint)
			ctx := context.Background()
			bucket := s.NewBucket(t)
			b, key, err := Open(ctx, s.Scheme+"://"+bucket+"/x.bin")
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, 64<<10)
			for i := range data {
				data[i] = byte(i * 13)
			}
			if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), nil); err != nil {
				t.Fatal(err)
			}
			p, proxy := storetest.NewProxy(t, s.Endpoint, func(int) storetest.Fault { return storetest.Pass })
			s.Point(t, proxy)
			pb, _, err := Open(ctx, s.Scheme+"://"+bucket+"/x.bin")
			if err != nil {
				t.Fatal(err)
			}
			o, err := pb.Object(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			var rs []Range
			for off := int64(0); off < int64(len(data)); off += 1 << 10 {
				rs = append(rs, Range{Off: off, Buf: make([]byte, 1<<10)})
			}
			for range 2 { // and again, from the idle connections
				if err := o.ReadRanges(rs, 4); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range rs {
				if !bytes.Equal(r.Buf, data[r.Off:r.Off+int64(len(r.Buf))]) {
					t.Errorf("range at %d differs", r.Off)
				}
			}
			if got := p.Requests("GET"); got < 2*len(rs) {
				t.Fatalf("the proxy saw %d GETs, want at least %d", got, 2*len(rs))
			}
			// 4 at once need 4 connections, and the stat's may be one more; net/http
			// closes, rather than reuses, one whose request it did not see written
			// within 50 ms (a busy machine), so a few more are no failure. Without
			// reuse there would be one per read.
			if c := p.Conns(); c > 4+1+8 || p.Closes() > 0 {
				t.Errorf("%d ranged reads, 4 at once, opened %d connections (%d requests asked to close); want at most 13",
					2*len(rs), c, p.Closes())
			}
		})
	}
}
