// Package storetest is for tests of object stores. It finds the test servers that
// .ci/store.sh started (an S3 server, versitygw, and a GCS emulator,
// fake-gcs-server), whose endpoints it reads from TPULAYOUT_TEST_S3 (credentials in
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and TPULAYOUT_TEST_GCS, and makes
// buckets on them; it starts an in-memory Fake that answers as both (All returns it
// with the real servers, so tests run in a plain go test too); and it puts a Proxy in
// front of either that misbehaves on purpose: failed statuses, dropped, cut, slow or
// stalled bodies, another range's bytes, error text with terminal escapes.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Server is a store under test: its scheme and endpoint.
type Server struct {
	Scheme   string // "s3" or "gs"
	Endpoint string // http://host:port
	Fake     *Fake  // the in-memory store at Endpoint, or nil for a real server
}

// Name is the server's scheme, and "-fake" for a Fake: a subtest's name.
func (s Server) Name() string {
	if s.Fake != nil {
		return s.Scheme + "-fake"
	}
	return s.Scheme
}

// All returns a Fake as S3 and as GCS, then the real servers whose environment
// variables are set: tests run with all of them run in a plain go test too.
func All(t *testing.T) []Server {
	t.Helper()
	f, u := NewFake(t)
	ss := []Server{{"s3", u, f}, {"gs", u, f}}
	if e := os.Getenv("TPULAYOUT_TEST_S3"); e != "" {
		ss = append(ss, Server{Scheme: "s3", Endpoint: e})
	}
	if e := os.Getenv("TPULAYOUT_TEST_GCS"); e != "" {
		ss = append(ss, Server{Scheme: "gs", Endpoint: e})
	}
	return ss
}

// Servers returns the servers whose environment variables are set, skipping the
// test when there are none.
func Servers(t *testing.T) []Server {
	t.Helper()
	var ss []Server
	if e := os.Getenv("TPULAYOUT_TEST_S3"); e != "" {
		ss = append(ss, Server{Scheme: "s3", Endpoint: e})
	}
	if e := os.Getenv("TPULAYOUT_TEST_GCS"); e != "" {
		ss = append(ss, Server{Scheme: "gs", Endpoint: e})
	}
	if len(ss) == 0 {
		t.Skip("no test servers: TPULAYOUT_TEST_S3 and TPULAYOUT_TEST_GCS are unset (.ci/store.sh starts them)")
	}
	return ss
}

// Point makes the scheme's URLs go to endpoint for the rest of the test. For a
// Fake, which takes any credentials, it sets test ones (and no instance role is
// asked for).
func (s Server) Point(t *testing.T, endpoint string) {
	if s.Fake != nil && s.Scheme == "s3" {
		t.Setenv("AWS_ACCESS_KEY_ID", "tpulayout-test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "tpulayout-test-secret")
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		t.Setenv("AWS_REGION", "us-east-1")
	}
	if s.Scheme == "s3" {
		t.Setenv("AWS_ENDPOINT_URL_S3", endpoint)
	} else {
		t.Setenv("STORAGE_EMULATOR_HOST", endpoint)
	}
}

var bucketSeq atomic.Int64

// NewBucket creates an empty bucket with a name unique to this run and returns it.
func (s Server) NewBucket(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("tpl-%d-%d", os.Getpid(), bucketSeq.Add(1))
	if s.Fake != nil {
		return name // every bucket of a Fake exists
	}
	ctx := context.Background()
	if s.Scheme == "s3" {
		u, _ := url.Parse(s.Endpoint)
		c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewEnvAWS(), Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.MakeBucket(ctx, name, minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("creating bucket %s on %s: %v", name, s.Endpoint, err)
		}
		return name
	}
	body, _ := json.Marshal(map[string]string{"name": name})
	resp, err := http.Post(s.Endpoint+"/storage/v1/b?project=test", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("creating bucket %s on %s: %s", name, s.Endpoint, resp.Status)
	}
	return name
}

// Fault is what the proxy does to one request.
type Fault int

const (
	Pass   Fault = iota
	Status       // answer 503 without asking the server
	Drop         // forward, send half the body, then reset the connection
	Stall        // forward, then send the body slowly (a slow read)
	// The misbehaviours below are never in the rotation of a pick that counts
	// Fault(n % 4); Stall's pace depends on how fast the client reads, these do not.
	WrongRange   // forward for another range (see otherRange), and answer with that range's header and bytes (of a signed request, which the proxy cannot change, with that range's header only)
	Silent       // send nothing until the client gives up
	StallHeaders // forward, send the headers, then nothing until the client gives up
	StallMid     // forward, send the headers and half the body, then nothing until the client gives up
	Cut          // forward, send half the body, then close the connection cleanly
	Garble       // answer 503 with an error message that holds terminal escapes and control characters
)

// Garbled is the message of a Garble answer.
const Garbled = "\x1b[31mslow down\x1b[0m\rOK\a"

// Proxy forwards requests to a server, keeping the Host header (an S3
// signature covers it), and does to each request what its rule says, given how
// many times the same request (method, URL and Range) was made before.
type Proxy struct {
	target *url.URL
	rule   func(r *http.Request, n int) Fault
	done   chan struct{} // closed when the test ends: ends every stall
	mu     sync.Mutex
	tries  map[string]int // by method, URL and Range header
	reqs   map[string]int // by method
	seen   map[Fault]int  // how many requests got each fault
	conns  int            // client connections accepted
	closes int            // requests that asked to close their connection
	now    int            // GETs of a range being answered
	most   int            // the most of them at once
}

// NewProxy starts a proxy to target that does to each GET of a byte range what pick
// says, given how many times that range was asked for before, and passes the rest.
func NewProxy(t *testing.T, target string, pick func(n int) Fault) (*Proxy, string) {
	return NewProxyRule(t, target, func(r *http.Request, n int) Fault {
		if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
			return pick(n)
		}
		return Pass
	})
}

// NewProxyRule starts a proxy to target that does to each request what rule says,
// given how many times the same request was made before.
func NewProxyRule(t *testing.T, target string, rule func(r *http.Request, n int) Fault) (*Proxy, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: u, rule: rule, done: make(chan struct{}), tries: map[string]int{}, reqs: map[string]int{}, seen: map[Fault]int{}}
	srv := httptest.NewUnstartedServer(p)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.mu.Lock()
			p.conns++
			p.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(p.done) }) // before srv.Close, which waits for handlers
	return p, srv.URL
}

// ByEnd is a rule that does to each GET of a byte range what pick says, given how
// many GETs of a range with the same last byte came before, and passes the rest: a
// read resumed after part of its bytes keeps its end, and so its count, whatever
// part of them arrived.
func ByEnd(pick func(n int) Fault) func(r *http.Request, n int) Fault {
	var mu sync.Mutex
	byEnd := map[string]int{}
	return func(r *http.Request, _ int) Fault {
		if !IsRange(r) {
			return Pass
		}
		_, end, _ := strings.Cut(r.Header.Get("Range"), "-")
		mu.Lock()
		defer mu.Unlock()
		byEnd[end]++
		return pick(byEnd[end] - 1)
	}
}

// IsRange reports whether r is a GET of a byte range.
func IsRange(r *http.Request) bool { return r.Method == http.MethodGet && r.Header.Get("Range") != "" }

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ranged := IsRange(r)
	id := r.Method + " " + r.URL.String() + " " + r.Header.Get("Range")
	p.mu.Lock()
	f := p.rule(r, p.tries[id])
	p.tries[id]++
	p.seen[f]++
	p.reqs[r.Method]++
	if r.Close {
		p.closes++
	}
	if ranged {
		p.now++
		p.most = max(p.most, p.now)
	}
	p.mu.Unlock()
	if ranged {
		defer func() {
			p.mu.Lock()
			p.now--
			p.mu.Unlock()
		}()
	}
	switch f {
	case Status:
		http.Error(w, "injected", http.StatusServiceUnavailable)
		return
	case Garble:
		garble(w, r)
		return
	case Silent:
		p.wait(r)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = r.Host
	signed := r.Header.Get("Authorization") != "" // an S3 signature covers the Range
	if f == WrongRange && !signed {
		out.Header.Set("Range", otherRange(r.Header.Get("Range")))
	}
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		// Hop by hop: the client's connection is the proxy's to keep or close
		// (versitygw closes every one unless started with --keep-alive).
		if k != "Connection" {
			w.Header()[k] = v
		}
	}
	if cr := resp.Header.Get("Content-Range"); f == WrongRange && signed && cr != "" {
		// The bytes asked for, said to be another range's: a server that sends
		// another range's bytes says so in the same way.
		var a, b, total int64
		if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &a, &b, &total); err == nil {
			rg := otherRange(fmt.Sprintf("bytes=%d-%d", a, b))
			w.Header().Set("Content-Range", strings.Replace(rg, "=", " ", 1)+fmt.Sprintf("/%d", total))
		}
	}
	w.WriteHeader(resp.StatusCode)
	p.body(w, r, resp, f)
}

// body sends the response's body as fault f says.
func (p *Proxy) body(w http.ResponseWriter, r *http.Request, resp *http.Response, f Fault) {
	half := max(resp.ContentLength/2, 1)
	switch f {
	case Drop, Cut:
		io.CopyN(w, resp.Body, half)
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			if f == Drop {
				c.(*net.TCPConn).SetLinger(0) // a reset, not a clean close
			}
			c.Close()
		}
	case StallHeaders, StallMid:
		if f == StallMid {
			io.CopyN(w, resp.Body, half)
		}
		w.(http.Flusher).Flush()
		p.wait(r)
	case Stall:
		buf := make([]byte, 64<<10)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			w.(http.Flusher).Flush()
			if err != nil {
				return
			}
			time.Sleep(30 * time.Millisecond)
		}
	default:
		io.Copy(w, resp.Body)
	}
}

// wait returns when the client gave up on r or the test ended.
func (p *Proxy) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-p.done:
	}
}

// garble answers 503 with Garbled as the message, in S3's form (an XML body) or
// GCS's (JSON).
func garble(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/storage/") || strings.HasPrefix(r.URL.Path, "/upload/") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 503, "message": Garbled}})
		return
	}
	// Not in the headers, which Go's client refuses with control characters in them.
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintf(w, "<Error><Code>SlowDown</Code><Message>%s</Message></Error>", Garbled)
}

// otherRange is the range of the same length before rg ("bytes=a-b") when there is
// one, else without its first byte when it starts at 0, else the one after it.
func otherRange(rg string) string {
	var a, b int64
	if _, err := fmt.Sscanf(rg, "bytes=%d-%d", &a, &b); err != nil {
		return rg
	}
	n := b - a + 1
	switch {
	case a >= n:
		return fmt.Sprintf("bytes=%d-%d", a-n, b-n)
	case a == 0: // perhaps the whole object: the range without its first byte
		return fmt.Sprintf("bytes=1-%d", max(b, 1))
	}
	return fmt.Sprintf("bytes=%d-%d", a+n, b+n)
}

// Seen is how many requests got fault f so far.
func (p *Proxy) Seen(f Fault) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[f]
}

// Conns is how many connections clients opened to the proxy, which keeps them open
// between requests unless the client asks otherwise.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns
}

// MostInFlight is the most ranged GETs the proxy answered at once.
func (p *Proxy) MostInFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.most
}

// Closes is how many requests asked for their connection to be closed after them.
func (p *Proxy) Closes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closes
}

// Requests is how many requests of method (GET, PUT, POST, …) the proxy got.
func (p *Proxy) Requests(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqs[method]
}
