package store

import (
	"bytes"
	"testing"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestServerConnectionReuse reads 64 ranges, 4 at once, through a proxy that keeps
// connections open: the client reuses them (each body is read to its end, and no
// request asks to close), so it opens about as many as it has reads in flight, not
// one a read. (versitygw itself closes every connection unless started with
// --keep-alive; the proxy stands for a store that does not.)
func TestServerConnectionReuse(t *testing.T) {
	eachServer(t, func(t *testing.T, s storetest.Server) {
		data, b, p := misbehaving(t, s, 64<<10, always(storetest.Pass, anyRequest), DefaultRetry)
		o := object(t, b)
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
