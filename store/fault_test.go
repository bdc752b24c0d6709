package store

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestFaultyServer reads an object through a proxy that fails most requests in
// each of its ways: every range arrives exact.
func TestFaultyServer(t *testing.T) {
	for _, s := range storetest.Servers(t) {
		t.Run(s.Scheme, func(t *testing.T) {
			s.Point(t, s.Endpoint)
			ctx := context.Background()
			bucket := s.NewBucket(t)
			b, key, err := Open(ctx, s.Scheme+"://"+bucket+"/ckpt.bin")
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, 4<<20)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), nil); err != nil {
				t.Fatal(err)
			}
			// through opens the object through a proxy that does what pick says to
			// each request, retried as r says.
			through := func(pick func(n int) storetest.Fault, r Retry) (*storetest.Proxy, *Object) {
				p, proxy := storetest.NewProxy(t, s.Endpoint, pick)
				s.Point(t, proxy)
				pb, _, err := Open(ctx, s.Scheme+"://"+bucket+"/ckpt.bin")
				if err != nil {
					t.Fatal(err)
				}
				pb.Retry = r
				o, err := pb.Object(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				return p, o
			}
			// Each range's first three requests fail: a 503, a dropped connection, a
			// read too slow for the attempt's timeout; the fourth passes.
			p, o := through(func(n int) storetest.Fault { return storetest.Fault((n + 1) % 4) },
				Retry{Tries: 8, First: time.Millisecond, Max: 20 * time.Millisecond, Timeout: 300 * time.Millisecond})
			var rs []Range
			for off := int64(0); off < int64(len(data)); off += 1 << 20 {
				rs = append(rs, Range{Off: off, Buf: make([]byte, min(1<<20, int64(len(data))-off))})
			}
			if err := o.ReadRanges(rs, 4); err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if !bytes.Equal(r.Buf, data[r.Off:r.Off+int64(len(r.Buf))]) {
					t.Errorf("range at %d differs", r.Off)
				}
			}
			if p.Seen(storetest.Status) == 0 || p.Seen(storetest.Drop) == 0 || p.Seen(storetest.Stall) == 0 {
				t.Errorf("faults injected: %d 503s, %d drops, %d stalls; want each kind",
					p.Seen(storetest.Status), p.Seen(storetest.Drop), p.Seen(storetest.Stall))
			}

			// A server that drops every response halfway: each try resumes where the
			// last stopped and, bringing half of what it asked for, does not count as
			// a failure (read again from the start, every try would end the same).
			dp, do := through(func(int) storetest.Fault { return storetest.Drop }, Retry{Tries: 8, First: time.Millisecond, Max: time.Millisecond})
			whole := make([]byte, len(data))
			if _, err := do.ReadAt(whole, 0); err != nil {
				t.Fatalf("always dropped halfway: %v", err)
			}
			if !bytes.Equal(whole, data) {
				t.Error("always dropped halfway: the bytes differ")
			}
			if n := dp.Seen(storetest.Drop); n < 2 || n > 60 {
				t.Errorf("always dropped halfway: %d tries, want about log2 of %d", n, len(data))
			}

			// A server that always fails: the error names the object after the last try.
			_, bo := through(func(int) storetest.Fault { return storetest.Status }, Retry{Tries: 3, First: time.Millisecond, Max: time.Millisecond})
			_, err = bo.ReadAt(make([]byte, 10), 5)
			want := s.Scheme + "://" + bucket + "/ckpt.bin: bytes 5–15 of 4194304: gave up after 3 tries: HTTP status 503"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("always 503: %v; want %q", err, want)
			}
		})
	}
}
