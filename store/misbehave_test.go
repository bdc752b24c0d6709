package store

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// misbehaving puts size random bytes at ckpt.bin in a new bucket of s and returns
// them and a bucket that reaches s through a proxy doing what rule says, retried as
// r says.
func misbehaving(t *testing.T, s storetest.Server, size int, rule func(r *http.Request, n int) storetest.Fault, r Retry) ([]byte, *Bucket, *storetest.Proxy) {
	t.Helper()
	s.Point(t, s.Endpoint)
	ctx := context.Background()
	b, key := openNew(t, s, "ckpt.bin")
	data := make([]byte, size)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	// Uploaded as a conversion uploads, declaring its CRC-32C, with metadata that lies.
	if err := b.PutFileCRC32C(ctx, key, bytes.NewReader(data), int64(len(data)), map[string]string{"crc32c": "00000000"}, crc32cOf(data)); err != nil {
		t.Fatal(err)
	}
	p, proxy := storetest.NewProxyRule(t, s.Endpoint, rule)
	s.Point(t, proxy)
	pb, _, err := Open(ctx, b.URL(key))
	if err != nil {
		t.Fatal(err)
	}
	pb.Retry = r
	return data, pb, p
}

// always is a rule that does f to every request that match says.
func always(f storetest.Fault, match func(r *http.Request) bool) func(*http.Request, int) storetest.Fault {
	return func(r *http.Request, _ int) storetest.Fault {
		if match(r) {
			return f
		}
		return storetest.Pass
	}
}

// firstTry is a rule that does f to the first ranged GET, then passes.
func firstTry(f storetest.Fault) func(*http.Request, int) storetest.Fault {
	var once sync.Once
	return func(r *http.Request, n int) storetest.Fault {
		g := storetest.Pass
		if storetest.IsRange(r) {
			once.Do(func() { g = f })
		}
		return g
	}
}

func anyRequest(*http.Request) bool { return true }

// patient retries without waiting, a try failing when no byte came for 2 s: no
// answer of a working server, on however busy a machine, is that slow. quick fails
// a try after 100 ms without a byte: only for reads from a server made to stall.
var (
	patient = Retry{Tries: 6, First: time.Millisecond, Max: 2 * time.Millisecond, Stall: 2 * time.Second, StallTries: 2}
	quick   = Retry{Tries: 6, First: time.Millisecond, Max: 2 * time.Millisecond, Stall: 100 * time.Millisecond, StallTries: 2}
)

// TestMisbehavingServer reads through a proxy that answers wrongly in each of its
// ways, in front of the fake and the real servers: every misbehaviour either reads
// the right bytes or fails with an error that says what the server did.
func TestMisbehavingServer(t *testing.T) {
	const size = 2 << 20
	eachServer(t, func(t *testing.T, s storetest.Server) {
		t.Run("wrong range", func(t *testing.T) {
			_, b, _ := misbehaving(t, s, size, always(storetest.WrongRange, storetest.IsRange), patient)
			o := object(t, b)
			_, err := o.ReadAt(make([]byte, 1<<20), 1<<20)
			var re *RangeError
			if !errors.As(err, &re) || re.Off != 1<<20 || re.Len != 1<<20 || re.Size != size {
				t.Fatalf("a range's bytes for another's: %v; want a RangeError for 1 MiB at 1 MiB", err)
			}
			for _, want := range []string{"bytes=1048576-2097151", "bytes 0-1048575/2097152", "ckpt.bin"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
		for _, f := range []storetest.Fault{storetest.StallHeaders, storetest.StallMid, storetest.Silent} {
			t.Run("stall "+faultName(f), func(t *testing.T) {
				_, b, p := misbehaving(t, s, size, always(f, storetest.IsRange), patient)
				o := object(t, b)
				b.Retry = quick // for o's reads, which all stall
				var notes []Note
				var mu sync.Mutex
				b.Retry.Notify = func(n Note) { mu.Lock(); notes = append(notes, n); mu.Unlock() }
				start := time.Now()
				_, err := o.ReadAt(make([]byte, size), 0)
				var se *StallError
				if !errors.As(err, &se) || se.After != quick.Stall {
					t.Fatalf("a server that stalls: %v; want a StallError", err)
				}
				if !strings.Contains(err.Error(), "the server sent nothing for 100ms") {
					t.Errorf("error %q does not say the server sent nothing", err)
				}
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("a server that stalls held the read %v", d)
				}
				if n := p.Seen(f); n != quick.StallTries {
					t.Errorf("%d stalled tries, want %d (StallTries)", n, quick.StallTries)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(notes) != quick.StallTries-1 || !strings.Contains(notes[0].String(), "ckpt.bin") ||
					!strings.Contains(notes[0].String(), "sent nothing") {
					t.Errorf("notes while retrying: %v; want one naming the object and the stall", notes)
				}
			})
		}
		t.Run("stall stat", func(t *testing.T) {
			_, b, _ := misbehaving(t, s, 10, always(storetest.Silent, anyRequest), quick)
			_, err := b.Stat(context.Background(), "ckpt.bin")
			var se *StallError
			if !errors.As(err, &se) {
				t.Fatalf("a server that says nothing to a stat: %v; want a StallError", err)
			}
		})
		for _, f := range []storetest.Fault{storetest.Cut, storetest.Drop, storetest.StallMid, storetest.Status} {
			t.Run("once "+faultName(f), func(t *testing.T) {
				data, b, p := misbehaving(t, s, size, firstTry(f), patient)
				o := object(t, b)
				got := make([]byte, size)
				if _, err := o.ReadAt(got, 0); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					t.Error("the bytes differ")
				}
				if p.Seen(f) != 1 {
					t.Errorf("fault seen %d times", p.Seen(f))
				}
			})
		}
		t.Run("control characters", func(t *testing.T) {
			_, b, _ := misbehaving(t, s, 10, always(storetest.Garble, storetest.IsRange), Retry{Tries: 1})
			_, err := object(t, b).ReadAt(make([]byte, 10), 0)
			if err == nil {
				t.Fatal("a 503 read as success")
			}
			if i := strings.IndexFunc(err.Error(), unicode.IsControl); i >= 0 {
				t.Errorf("error %q holds control character %q", err, err.Error()[i])
			}
			if !strings.Contains(err.Error(), `\x1b[31mslow down\x1b[0m\rOK\a`) {
				t.Errorf("error %q does not show the server's message escaped", err)
			}
		})
		t.Run("service checksum", func(t *testing.T) {
			data, b, _ := misbehaving(t, s, 1000, always(storetest.Pass, anyRequest), patient)
			a, err := b.Stat(context.Background(), "ckpt.bin")
			if err != nil {
				t.Fatal(err)
			}
			want := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
			if got, ok := a.ServiceCRC32C(); !ok || got != want {
				t.Errorf("the service's CRC-32C %08x (%v), want %08x of the bytes; metadata says %q", got, ok, want, a.Metadata["crc32c"])
			}
		})
	})
}

func object(t *testing.T, b *Bucket) *Object {
	t.Helper()
	o, err := b.Object(context.Background(), "ckpt.bin")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func faultName(f storetest.Fault) string {
	return map[storetest.Fault]string{storetest.StallHeaders: "after the headers", storetest.StallMid: "mid-body",
		storetest.Silent: "before the headers", storetest.Cut: "cut", storetest.Drop: "dropped", storetest.Status: "503"}[f]
}

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
