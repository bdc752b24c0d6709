package store

import (
	"bytes"
	"context"
	"fmt"
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
