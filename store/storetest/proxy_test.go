package storetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// get asks u for path's bytes rg (none when ""), giving up after wait, and returns
// the answer, as much of its body as came, and the error that ended it.
func get(t *testing.T, u, path, rg string, header map[string]string, wait time.Duration) (*http.Response, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", u+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rg != "" {
		req.Header.Set("Range", rg)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// Each fault does to a ranged GET what it says, whatever the client does.
func TestProxyFaults(t *testing.T) {
	f, u := NewFake(t)
	data := make([]byte, 200)
	for i := range data {
		data[i] = byte(i)
	}
	f.Put("b", "k", data, nil)
	signed := map[string]string{"Authorization": "AWS4-HMAC-SHA256 test"}
	const long, short = time.Minute, 300 * time.Millisecond // short: for the faults that wait for the client to give up
	for _, c := range []struct {
		fault   Fault
		rg      string
		header  map[string]string
		wait    time.Duration
		status  int    // 0: no answer
		body    []byte // what came (of a 503: in what came)
		prefix  bool   // what came is a prefix of body, perhaps shorter (a reset may drop bytes received)
		failed  bool   // the body ended in an error
		crRange string // the answer's Content-Range
	}{
		{Pass, "bytes=100-149", nil, long, 206, data[100:150], false, false, "bytes 100-149/200"},
		{Status, "bytes=100-149", nil, long, 503, []byte("injected\n"), false, false, ""},
		{Garble, "bytes=100-149", nil, long, 503, []byte("<Message>" + Garbled + "</Message>"), false, false, ""},
		{Stall, "bytes=100-149", nil, long, 206, data[100:150], false, false, "bytes 100-149/200"},
		{Drop, "bytes=100-149", nil, long, 206, data[100:125], true, true, "bytes 100-149/200"},
		{Cut, "bytes=100-149", nil, long, 206, data[100:125], false, true, "bytes 100-149/200"},
		{WrongRange, "bytes=100-149", nil, long, 206, data[50:100], false, false, "bytes 50-99/200"},
		{WrongRange, "bytes=0-9", nil, long, 206, data[1:10], false, false, "bytes 1-9/200"},
		{WrongRange, "bytes=10-29", nil, long, 206, data[30:50], false, false, "bytes 30-49/200"},
		{WrongRange, "bytes=100-149", signed, long, 206, data[100:150], false, false, "bytes 50-99/200"},
		{Silent, "bytes=100-149", nil, short, 0, nil, false, true, ""},
		{StallHeaders, "bytes=100-149", nil, short, 206, nil, false, true, "bytes 100-149/200"},
		{StallMid, "bytes=100-149", nil, short, 206, data[100:125], false, true, "bytes 100-149/200"},
	} {
		name := fmt.Sprintf("fault %d of %s", c.fault, c.rg)
		p, pu := NewProxy(t, u, func(int) Fault { return c.fault })
		resp, b, err := get(t, pu, "/b/k", c.rg, c.header, c.wait)
		switch {
		case c.status == 0:
			if err == nil || resp != nil {
				t.Errorf("%s: answered %v, %v", name, resp, err)
			}
		case resp == nil:
			t.Errorf("%s: no answer: %v", name, err)
		case resp.StatusCode != c.status || (err != nil) != c.failed || resp.Header.Get("Content-Range") != c.crRange ||
			c.status == 503 && !bytes.Contains(b, c.body) ||
			c.status == 206 && !bytes.Equal(b, c.body) && !(c.prefix && bytes.HasPrefix(c.body, b)):
			t.Errorf("%s: %s, Content-Range %q, %d bytes %q, %v", name, resp.Status, resp.Header.Get("Content-Range"), len(b), b, err)
		}
		if p.Seen(c.fault) != 1 || p.Requests("GET") != 1 || p.MostInFlight() != 1 {
			t.Errorf("%s: seen %d, %d GETs, %d at once", name, p.Seen(c.fault), p.Requests("GET"), p.MostInFlight())
		}
	}
}

// A Garble answer to GCS is in GCS's form.
func TestProxyGarbleGCS(t *testing.T) {
	_, u := NewFake(t)
	_, pu := NewProxyRule(t, u, func(*http.Request, int) Fault { return Garble })
	resp, b, err := get(t, pu, "/storage/v1/b/b/o/k", "", nil, time.Minute)
	if err != nil || resp.StatusCode != 503 || !strings.Contains(string(b), `"message":"\u001b[31mslow down`) {
		t.Errorf("%v: %q, %v", resp, b, err)
	}
}

// NewProxy's pick sees how many times the same range came before, and passes all
// but ranged GETs; ByEnd counts by the range's last byte; the proxy counts
// connections and the requests that close theirs.
func TestProxyCounts(t *testing.T) {
	f, u := NewFake(t)
	f.Put("b", "k", make([]byte, 100), nil)
	var ns []int
	p, pu := NewProxy(t, u, func(n int) Fault { ns = append(ns, n); return Status })
	for _, rg := range []string{"bytes=0-9", "bytes=0-9", "bytes=10-19", ""} {
		get(t, pu, "/b/k", rg, nil, time.Minute)
	}
	if fmt.Sprint(ns) != "[0 1 0]" || p.Seen(Status) != 3 || p.Seen(Pass) != 1 || p.Requests("GET") != 4 {
		t.Errorf("counts %v; seen %d, %d", ns, p.Seen(Status), p.Seen(Pass))
	}
	req, _ := http.NewRequest("HEAD", pu+"/b/k", nil)
	req.Close = true
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD: %v, %v", resp, err)
	}
	if p.Closes() != 1 || p.Conns() < 1 {
		t.Errorf("%d closes, %d connections", p.Closes(), p.Conns())
	}
	ns = nil
	rule := ByEnd(func(n int) Fault { ns = append(ns, n); return Pass })
	for _, rg := range []string{"bytes=0-9", "bytes=5-9", "bytes=10-19", ""} {
		r, _ := http.NewRequest("GET", "http://x/b/k", nil)
		if rg != "" {
			r.Header.Set("Range", rg)
		}
		if rule(r, 0) != Pass || IsRange(r) != (rg != "") {
			t.Errorf("%q: not passed, or IsRange wrong", rg)
		}
	}
	if fmt.Sprint(ns) != "[0 1 0]" {
		t.Errorf("ByEnd counts %v, want [0 1 0]", ns)
	}
	if got := otherRange("bytes=5-"); got != "bytes=5-" {
		t.Errorf("an open range: %q", got)
	}
}
