package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// Tests against the servers of storetest.All: its Fake in every go test, and the real
// servers that .ci/store.sh starts. eachServer and openNew serve the other files too.

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

// Test-only credentials and token, not secrets: the test checks they never show
// in an error.
const (
	adcRefresh = "refresh-1f0c-test"
	adcSecret  = "client-secret-7a2e-test"
	adcToken   = "access-token-93bd-test"
)

// TestServerGCSApplicationDefaultCredentials: with GOOGLE_APPLICATION_CREDENTIALS naming an
// authorized_user file whose token_uri is a local token endpoint, and no emulator
// setting, every request that reaches fake-gcs-server (through a proxy in front of it
// that records them) carries the bearer token the endpoint issued; the refresh token
// is exchanged once. Errors (a missing object, a token endpoint that refuses) name the
// URL and show neither the token nor the file's secrets.
func TestServerGCSApplicationDefaultCredentials(t *testing.T) {
	var gcs *storetest.Server
	for _, s := range storetest.Servers(t) {
		if s.Scheme == "gs" {
			gcs = &s
		}
	}
	if gcs == nil {
		t.Skip("no GCS server (TPULAYOUT_TEST_GCS; see .ci/store.sh)")
	}
	gcs.Point(t, gcs.Endpoint)
	bucket := gcs.NewBucket(t) // created without authorization, as the emulator allows

	var mu sync.Mutex
	refreshes, refuse := 0, false
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		defer mu.Unlock()
		if refuse || r.Form.Get("refresh_token") != adcRefresh || r.Form.Get("client_secret") != adcSecret {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
			return
		}
		refreshes++
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, adcToken)
	}))
	defer tokens.Close()
	creds := filepath.Join(t.TempDir(), "adc.json")
	js := fmt.Sprintf(`{"type":"authorized_user","client_id":"tpulayout-test.apps.googleusercontent.com",
		"client_secret":%q,"refresh_token":%q,"token_uri":%q}`, adcSecret, adcRefresh, tokens.URL)
	if err := os.WriteFile(creds, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}

	// The proxy records each request's Authorization header, then forwards it.
	target, _ := url.Parse(gcs.Endpoint)
	var auths []string
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Method+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	t.Setenv("STORAGE_EMULATOR_HOST", "")
	os.Unsetenv("STORAGE_EMULATOR_HOST")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", creds)
	old := gcsAPI
	gcsAPI = proxy.URL
	defer func() { gcsAPI = old }()

	ctx := context.Background()
	b, key, err := Open(ctx, "gs://"+bucket+"/dir/obj.bin")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("tpulayout"), 1000)
	if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), map[string]string{"sha256": "x"}); err != nil {
		t.Fatal(err)
	}
	o, err := b.Object(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 100)
	if _, err := o.ReadAt(got, 500); err != nil || !bytes.Equal(got, data[500:600]) {
		t.Fatalf("ranged read: %v", err)
	}
	if as, err := b.List(ctx, "dir/"); err != nil || len(as) != 1 {
		t.Fatalf("list: %v, %v", as, err)
	}
	_, missing := b.Stat(ctx, "dir/missing.bin")
	mu.Lock()
	if len(auths) < 5 {
		t.Errorf("only %d requests reached the proxy", len(auths))
	}
	for _, a := range auths {
		if !strings.HasSuffix(a, " Bearer "+adcToken) {
			t.Errorf("a request reached the server with %q, not the bearer token", a)
		}
	}
	if refreshes != 1 {
		t.Errorf("the refresh token was exchanged %d times, want once", refreshes)
	}
	refuse = true
	mu.Unlock()

	// A fresh bucket handle must fetch a token, and the endpoint now refuses.
	b2, _, err := Open(ctx, "gs://"+bucket+"/dir/obj.bin")
	if err != nil {
		t.Fatal(err)
	}
	_, refused := b2.Stat(ctx, key)
	if msg := fmt.Sprint(refused); strings.Contains(msg, "tries") || !strings.Contains(msg, "Application Default Credentials") {
		t.Errorf("refused credentials: retried, or not said: %s", msg)
	}
	for _, err := range []error{missing, refused} {
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if !strings.Contains(msg, "gs://"+bucket+"/dir/") {
			t.Errorf("error does not name the URL: %s", msg)
		}
		for _, secret := range []string{adcToken, adcRefresh, adcSecret} {
			if strings.Contains(msg, secret) {
				t.Errorf("error shows a credential: %s", msg)
			}
		}
	}
	t.Logf("missing: %v", missing)
	t.Logf("refused: %v", refused)
}

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

func crc32cOf(b []byte) []byte {
	return binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// checkPutCRC32C puts data under key with its CRC-32C, then with a wrong one: the
// first is kept, the second refused with ErrChecksum and leaves the first in place.
func checkPutCRC32C(t *testing.T, b *Bucket, key string) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("tpulayout crc32c "), 1<<16) // 1 MiB
	good := crc32cOf(data)
	if err := b.PutFileCRC32C(ctx, key, bytes.NewReader(data), int64(len(data)), map[string]string{"crc32c": "x"}, good); err != nil {
		t.Fatalf("upload with the right CRC-32C: %v", err)
	}
	bad := bytes.Clone(good)
	bad[3] ^= 1
	other := bytes.Repeat([]byte("replaced"), 100)
	err := b.PutFileCRC32C(ctx, key, bytes.NewReader(other), int64(len(other)), nil, bad)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), key) {
		t.Fatalf("upload with a wrong CRC-32C: %v, want ErrChecksum naming %s", err, key)
	}
	got, err := b.ReadAll(ctx, key)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after the refused upload the object is %d bytes (%v), want the first %d", len(got), err, len(data))
	}
	if err := b.PutFileCRC32C(ctx, key, bytes.NewReader(data), 3, nil, []byte{1, 2}); err == nil {
		t.Error("a CRC-32C of 2 bytes was taken")
	}
}

func TestPutCRC32CFile(t *testing.T) {
	dir := t.TempDir()
	b, key, err := Open(context.Background(), filepath.Join(dir, "x.bin"))
	if err != nil {
		t.Fatal(err)
	}
	checkPutCRC32C(t, b, key)
}

func TestServerPutCRC32C(t *testing.T) {
	eachServer(t, func(t *testing.T, s storetest.Server) {
		b, key := openNew(t, s, "dir/x.bin")
		checkPutCRC32C(t, b, key)
	})
}
