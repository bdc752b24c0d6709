package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// gcsBackend is a Google Cloud Storage bucket through its JSON API over net/http,
// authorized by Application Default Credentials (golang.org/x/oauth2/google), or an
// emulator at STORAGE_EMULATOR_HOST without authorization.
type gcsBackend struct {
	hc     *http.Client
	base   string // https://storage.googleapis.com or the emulator's URL
	bucket string
}

// gcsAPI is where authorized requests go; tests point it at a server of their own
// (STORAGE_EMULATOR_HOST, as Google's libraries do, turns authorization off).
var gcsAPI = "https://storage.googleapis.com"

func newGCS(ctx context.Context, bucket string) (backend, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	if h := os.Getenv("STORAGE_EMULATOR_HOST"); h != "" {
		if !strings.Contains(h, "://") {
			h = "http://" + h
		}
		return &gcsBackend{hc: &http.Client{Transport: tr}, base: strings.TrimSuffix(h, "/"), bucket: bucket}, nil
	}
	creds, err := google.FindDefaultCredentials(ctx, "https://www.googleapis.com/auth/devstorage.read_write")
	if err != nil {
		return nil, fmt.Errorf("no GCS credentials (Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, or the metadata server): %w", err)
	}
	hc := &http.Client{Transport: &oauth2.Transport{Source: creds.TokenSource, Base: tr}}
	return &gcsBackend{hc: hc, base: gcsAPI, bucket: bucket}, nil
}

func (g *gcsBackend) objectURL(key string, q url.Values) string {
	u := g.base + "/storage/v1/b/" + url.PathEscape(g.bucket) + "/o/" + url.PathEscape(trimKey(key))
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// gcsObject is the JSON API's object resource, as far as it is used here.
type gcsObject struct {
	Name       string            `json:"name"`
	Size       string            `json:"size"`
	Generation string            `json:"generation"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	CRC32C     string            `json:"crc32c,omitempty"` // base64 of the 4 big-endian bytes
}

func (o gcsObject) attrs() (Attrs, error) {
	n, err := strconv.ParseInt(o.Size, 10, 64)
	if err != nil {
		return Attrs{}, fmt.Errorf("object %q: size %q is not a number", o.Name, o.Size)
	}
	meta := map[string]string{}
	for k, v := range o.Metadata {
		meta[strings.ToLower(k)] = v
	}
	a := Attrs{Key: o.Name, Size: n, Version: o.Generation, Metadata: meta}
	if o.CRC32C != "" {
		c, err := base64.StdEncoding.DecodeString(o.CRC32C)
		if err != nil || len(c) != 4 {
			return Attrs{}, fmt.Errorf("object %q: crc32c %q is not 4 bytes in base64", o.Name, quoteControls(o.CRC32C))
		}
		a.CRC32C = c
	}
	return a, nil
}

// do sends req and returns the response of a 2xx status; other statuses become
// errors (the body's message kept).
func (g *gcsBackend) do(req *http.Request) (*http.Response, error) {
	resp, err := g.hc.Do(req)
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		// Without the request's URL: the object is named by Bucket's error.
		return nil, fmt.Errorf("no GCS access token from Application Default Credentials: %w", re)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	msg = quoteControls(msg)
	switch resp.StatusCode {
	case http.StatusNotFound:
		if strings.Contains(strings.ToLower(msg), "bucket") {
			return nil, fmt.Errorf("bucket %q %w (%s)", g.bucket, ErrNotExist, msg)
		}
		return nil, fmt.Errorf("object %w", ErrNotExist)
	case http.StatusPreconditionFailed:
		return nil, ErrChanged
	}
	return nil, &StatusError{Code: resp.StatusCode, Msg: msg}
}

func (g *gcsBackend) stat(ctx context.Context, key string) (Attrs, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.objectURL(key, nil), nil)
	if err != nil {
		return Attrs{}, err
	}
	resp, err := g.do(req)
	if err != nil {
		return Attrs{}, err
	}
	defer resp.Body.Close()
	var o gcsObject
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
		return Attrs{}, fmt.Errorf("bad object metadata: %w", err)
	}
	a, err := o.attrs()
	a.Key = key
	return a, err
}

func (g *gcsBackend) readAt(ctx context.Context, a Attrs, p []byte, off int64) (int, error) {
	q := url.Values{"alt": {"media"}}
	if a.Version != "" {
		q.Set("ifGenerationMatch", a.Version)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.objectURL(a.Key, q), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	resp, err := g.do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// Emulators may ignore ifGenerationMatch: the headers say what was served.
	if gen := resp.Header.Get("X-Goog-Generation"); gen != "" && a.Version != "" && gen != a.Version {
		return 0, fmt.Errorf("%w (generation %s, was %s)", ErrChanged, gen, a.Version)
	}
	if err := checkContentRange(resp.Header.Get("Content-Range"), off, len(p), a.Size); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusPartialContent && !(off == 0 && resp.ContentLength == int64(len(p))) {
		return 0, fmt.Errorf("asked for bytes %d–%d, got status %d without that range", off, off+int64(len(p)), resp.StatusCode)
	}
	return readBody(ctx, resp.Body, p)
}

// put is a multipart upload: the object's metadata, then its bytes, in one request,
// so the object appears whole or not at all.
//
// A crc32c given goes in the metadata part; GCS checks the bytes against it and
// answers 400 when they differ.
func (g *gcsBackend) put(ctx context.Context, key string, r io.Reader, size int64, meta map[string]string, crc32c []byte) error {
	o := gcsObject{Name: trimKey(key), Metadata: meta}
	if crc32c != nil {
		o.CRC32C = base64.StdEncoding.EncodeToString(crc32c)
	}
	js, err := json.Marshal(o)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := func() error {
			h := textproto.MIMEHeader{"Content-Type": {"application/json; charset=UTF-8"}}
			w, err := mw.CreatePart(h)
			if err != nil {
				return err
			}
			if _, err := w.Write(js); err != nil {
				return err
			}
			w, err = mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/octet-stream"}})
			if err != nil {
				return err
			}
			n, err := io.Copy(w, r)
			if err != nil {
				return err
			}
			if size >= 0 && n != size {
				return fmt.Errorf("read %d bytes to upload, want %d", n, size)
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	u := g.base + "/upload/storage/v1/b/" + url.PathEscape(g.bucket) + "/o?uploadType=multipart"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, pr)
	if err != nil {
		pr.CloseWithError(err)
		return err
	}
	req.Header.Set("Content-Type", "multipart/related; boundary="+mw.Boundary())
	resp, err := g.do(req)
	pr.CloseWithError(errors.New("upload ended")) // stops the writer if the request did
	var se *StatusError
	if crc32c != nil && errors.As(err, &se) && se.Code == http.StatusBadRequest && strings.Contains(strings.ToLower(se.Msg), "crc32c") {
		return fmt.Errorf("%w (%s)", ErrChecksum, se.Msg)
	}
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func (g *gcsBackend) list(ctx context.Context, prefix string) ([]Attrs, error) {
	var as []Attrs
	token := ""
	for {
		q := url.Values{"prefix": {trimKey(prefix)}}
		if token != "" {
			q.Set("pageToken", token)
		}
		u := g.base + "/storage/v1/b/" + url.PathEscape(g.bucket) + "/o?" + q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := g.do(req)
		if err != nil {
			return nil, err
		}
		var page struct {
			Items         []gcsObject `json:"items"`
			NextPageToken string      `json:"nextPageToken"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		received(ctx)
		if err != nil {
			return nil, fmt.Errorf("bad object list: %w", err)
		}
		for _, o := range page.Items {
			a, err := o.attrs()
			if err != nil {
				return nil, err
			}
			as = append(as, a)
		}
		if page.NextPageToken == "" {
			return as, nil
		}
		token = page.NextPageToken
	}
}

func (g *gcsBackend) remove(ctx context.Context, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, g.objectURL(key, nil), nil)
	if err != nil {
		return err
	}
	resp, err := g.do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func (g *gcsBackend) bucketExists(ctx context.Context) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.base+"/storage/v1/b/"+url.PathEscape(g.bucket), nil)
	if err != nil {
		return false, err
	}
	resp, err := g.hc.Do(req)
	if err != nil {
		return false, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode/100 == 2:
		return true, nil
	}
	return false, &StatusError{Code: resp.StatusCode}
}
