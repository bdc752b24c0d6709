package store

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestFaultyServer reads an object through a proxy that fails most requests in
// each of its ways: every range arrives exact. Nothing in it depends on how fast
// the machine is.
func TestFaultyServer(t *testing.T) {
	const size = 4 << 20
	eachServer(t, func(t *testing.T, s storetest.Server) {
		// Each range's first three requests fail: a 503, a connection reset after
		// half the body (which may or may not have arrived: the resumed read keeps
		// the range's end, and so its count), a server that sends the headers and
		// then nothing; the fourth passes. No try has a deadline that a read
		// slowed by a busy machine could miss: a stall is no byte for 2 s.
		rotate := storetest.ByEnd(func(n int) storetest.Fault {
			return []storetest.Fault{storetest.Status, storetest.Drop, storetest.StallHeaders, storetest.Pass}[min(n, 3)]
		})
		data, b, p := misbehaving(t, s, size, rotate, Retry{Tries: 8, First: time.Millisecond, Max: 20 * time.Millisecond, Stall: 2 * time.Second})
		var rs []Range
		for off := int64(0); off < size; off += 1 << 20 {
			rs = append(rs, Range{Off: off, Buf: make([]byte, min(1<<20, size-off))})
		}
		if err := object(t, b).ReadRanges(rs, 4); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if !bytes.Equal(r.Buf, data[r.Off:r.Off+int64(len(r.Buf))]) {
				t.Errorf("range at %d differs", r.Off)
			}
		}
		if p.Seen(storetest.Status) != len(rs) || p.Seen(storetest.Drop) != len(rs) || p.Seen(storetest.StallHeaders) != len(rs) {
			t.Errorf("faults injected: %d 503s, %d drops, %d stalls; want %d of each kind",
				p.Seen(storetest.Status), p.Seen(storetest.Drop), p.Seen(storetest.StallHeaders), len(rs))
		}

		// A server that cuts every response halfway: each try resumes where the
		// last stopped and, bringing half of what it asked for, does not count as
		// a failure (read again from the start, every try would end the same). The
		// cut is a clean close, after which every byte sent has arrived.
		data, b, p = misbehaving(t, s, size, always(storetest.Cut, storetest.IsRange), Retry{Tries: 8, First: time.Millisecond, Max: time.Millisecond})
		whole := make([]byte, size)
		if _, err := object(t, b).ReadAt(whole, 0); err != nil {
			t.Fatalf("always cut halfway: %v", err)
		}
		if !bytes.Equal(whole, data) {
			t.Error("always cut halfway: the bytes differ")
		}
		if n := p.Seen(storetest.Cut); n != 23 {
			t.Errorf("always cut halfway: %d tries, want 23 (log2 of %d, then the last byte)", n, size)
		}

		// A server that always fails: the error names the object after the last try.
		_, b, _ = misbehaving(t, s, size, always(storetest.Status, storetest.IsRange), Retry{Tries: 3, First: time.Millisecond, Max: time.Millisecond})
		_, err := object(t, b).ReadAt(make([]byte, 10), 5)
		want := b.URL("ckpt.bin") + ": bytes 5–15 of 4194304: gave up after 3 tries: HTTP status 503"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("always 503: %v; want %q", err, want)
		}
	})
}
