// Package storetest starts nothing: it finds the test servers that .ci/store.sh
// started (an S3 server, versitygw, and a GCS emulator, fake-gcs-server), whose
// endpoints it reads from TPULAYOUT_TEST_S3 (credentials in AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY) and TPULAYOUT_TEST_GCS, makes buckets on them, and puts
// a fault-injecting proxy in front of them. It is for tests only.
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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// server is a store under test: its scheme and endpoint.
type Server struct {
	Scheme   string // "s3" or "gs"
	Endpoint string // http://host:port
}

// Servers returns the servers whose environment variables are set, skipping the
// test when there are none.
func Servers(t *testing.T) []Server {
	t.Helper()
	var ss []Server
	if e := os.Getenv("TPULAYOUT_TEST_S3"); e != "" {
		ss = append(ss, Server{"s3", e})
	}
	if e := os.Getenv("TPULAYOUT_TEST_GCS"); e != "" {
		ss = append(ss, Server{"gs", e})
	}
	if len(ss) == 0 {
		t.Skip("no test servers: TPULAYOUT_TEST_S3 and TPULAYOUT_TEST_GCS are unset (.ci/store.sh starts them)")
	}
	return ss
}

// Point makes the scheme's URLs go to endpoint for the rest of the test.
func (s Server) Point(t *testing.T, endpoint string) {
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
	Drop         // forward, send half the body, then close the connection
	Stall        // forward, then send the body slowly (a slow read)
)

// Proxy forwards requests to a server, keeping the Host header (an S3
// signature covers it), and does to each GET of a byte range what pick says, given
// how many times that range was asked for before.
type Proxy struct {
	target *url.URL
	pick   func(n int) Fault
	mu     sync.Mutex
	tries  map[string]int // by Range header
	reqs   map[string]int // by method
	seen   map[Fault]int  // how many requests got each fault
	conns  int            // client connections accepted
	closes int            // requests that asked to close their connection
	now    int            // GETs of a range being answered
	most   int            // the most of them at once
}

func NewProxy(t *testing.T, target string, pick func(n int) Fault) (*Proxy, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: u, pick: pick, tries: map[string]int{}, reqs: map[string]int{}, seen: map[Fault]int{}}
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
	return p, srv.URL
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := Pass
	p.mu.Lock()
	if rg := r.Header.Get("Range"); r.Method == http.MethodGet && rg != "" {
		f = p.pick(p.tries[rg])
		p.tries[rg]++
	}
	p.seen[f]++
	p.reqs[r.Method]++
	if r.Close {
		p.closes++
	}
	ranged := r.Method == http.MethodGet && r.Header.Get("Range") != ""
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
	if f == Status {
		http.Error(w, "injected", http.StatusServiceUnavailable)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = r.Host
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
	w.WriteHeader(resp.StatusCode)
	switch f {
	case Drop:
		io.CopyN(w, resp.Body, max(resp.ContentLength/2, 1))
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.(*net.TCPConn).SetLinger(0) // a reset, not a clean close
			c.Close()
		}
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
