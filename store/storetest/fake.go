package storetest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/crc32"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fake is an in-memory object store that answers the requests package store makes
// of S3 (path-style: HEAD, GET with a range, PUT, DELETE, ListObjectsV2) and of
// GCS's JSON API (the object resource, alt=media with a range, multipart upload,
// list, delete), unauthenticated and well-behaved: a Proxy in front of it
// misbehaves. Every bucket exists. Like the services, it computes each object's
// CRC-32C from its bytes: GCS's object resource always carries it (crc32c); S3's
// HEAD and GET carry x-amz-checksum-crc32c when asked (x-amz-checksum-mode:
// ENABLED) and the upload declared one, which it checks.
type Fake struct {
	mu   sync.Mutex
	objs map[string]*fakeObject // by bucket + "/" + key
	gen  int64
}

type fakeObject struct {
	data     []byte
	meta     map[string]string // user metadata, keys lower case
	gen      int64
	declared bool // the S3 upload declared a CRC-32C
}

func (o *fakeObject) crc32c() string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], crc32.Checksum(o.data, crc32.MakeTable(crc32.Castagnoli)))
	return base64.StdEncoding.EncodeToString(b[:])
}

// NewFake starts a Fake for the rest of the test and returns it and its URL.
func NewFake(t testing.TB) (*Fake, string) {
	f := &Fake{objs: map[string]*fakeObject{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// Put stores an object as an upload would, metadata and all: metadata that says
// anything of the bytes may lie, as a client may upload any.
func (f *Fake) Put(bucket, key string, data []byte, meta map[string]string) {
	f.put(bucket, key, data, meta, true)
}

func (f *Fake) put(bucket, key string, data []byte, meta map[string]string, declared bool) {
	m := map[string]string{}
	for k, v := range meta {
		m[strings.ToLower(k)] = v
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	f.objs[bucket+"/"+key] = &fakeObject{data: bytes.Clone(data), meta: m, gen: f.gen, declared: declared}
}

func (f *Fake) get(bucket, key string) *fakeObject {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.objs[bucket+"/"+key]
}

func (f *Fake) list(bucket, prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keys []string
	for k := range f.objs {
		if b, key, _ := strings.Cut(k, "/"); b == bucket && strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

func (f *Fake) remove(bucket, key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.objs[bucket+"/"+key]
	delete(f.objs, bucket+"/"+key)
	return ok
}

func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/storage/v1/") || strings.HasPrefix(r.URL.Path, "/upload/storage/v1/") {
		f.serveGCS(w, r)
		return
	}
	f.serveS3(w, r)
}

// serveContent answers a GET or HEAD of o, honouring Range and If-Match.
func serveContent(w http.ResponseWriter, r *http.Request, o *fakeObject) {
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(o.data))
}

func (f *Fake) serveS3(w http.ResponseWriter, r *http.Request) {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if key == "" {
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Has("location"):
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></LocationConstraint>`)
		case r.Method == http.MethodGet:
			f.listS3(w, bucket, r.URL.Query().Get("prefix"))
		}
		return // HEAD: every bucket exists
	}
	switch r.Method {
	case http.MethodHead, http.MethodGet:
		o := f.get(bucket, key)
		if o == nil {
			s3Error(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		}
		h := w.Header()
		h.Set("ETag", fmt.Sprintf(`"%d"`, o.gen))
		for k, v := range o.meta {
			h.Set("X-Amz-Meta-"+k, v)
		}
		if o.declared && strings.EqualFold(r.Header.Get("X-Amz-Checksum-Mode"), "ENABLED") {
			h.Set("X-Amz-Checksum-Crc32c", o.crc32c())
		}
		serveContent(w, r, o)
	case http.MethodPut:
		f.putS3(w, r, bucket, key)
	case http.MethodDelete:
		f.remove(bucket, key)
		w.WriteHeader(http.StatusNoContent)
	default:
		s3Error(w, r, http.StatusNotImplemented, "NotImplemented", r.Method)
	}
}

func s3Error(w http.ResponseWriter, r *http.Request, code int, s3code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, s3code, msg)
	}
}

// putS3 takes a PutObject, its payload plain or aws-chunked (with a trailing
// checksum or not), and checks a CRC-32C declared in a header or the trailer.
func (f *Fake) putS3(w http.ResponseWriter, r *http.Request, bucket, key string) {
	if r.URL.Query().Has("uploadId") || r.URL.Query().Has("uploads") {
		s3Error(w, r, http.StatusNotImplemented, "NotImplemented", "multipart uploads")
		return
	}
	want := r.Header.Get("X-Amz-Checksum-Crc32c")
	var data []byte
	var err error
	if strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		var trailer map[string]string
		data, trailer, err = readChunked(r.Body)
		if v := trailer["x-amz-checksum-crc32c"]; v != "" {
			want = v
		}
	} else {
		data, err = io.ReadAll(r.Body)
	}
	if err != nil {
		s3Error(w, r, http.StatusBadRequest, "IncompleteBody", err.Error())
		return
	}
	meta := map[string]string{}
	for k, v := range r.Header {
		if m, ok := strings.CutPrefix(strings.ToLower(k), "x-amz-meta-"); ok {
			meta[m] = v[0]
		}
	}
	o := &fakeObject{data: data}
	if want != "" && want != o.crc32c() {
		s3Error(w, r, http.StatusBadRequest, "BadDigest", "The CRC32C you specified did not match the calculated checksum.")
		return
	}
	f.put(bucket, key, data, meta, want != "")
	w.Header().Set("ETag", fmt.Sprintf(`"%d"`, f.get(bucket, key).gen))
}

// readChunked decodes an aws-chunked payload: hex size[;signature] CRLF, the
// bytes, CRLF, until a chunk of size 0, then trailer lines until an empty one.
func readChunked(r io.Reader) ([]byte, map[string]string, error) {
	br := bufio.NewReader(r)
	var data []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, nil, fmt.Errorf("chunk header: %w", err)
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil || n < 0 {
			return nil, nil, fmt.Errorf("chunk size %q", size)
		}
		if n == 0 {
			break
		}
		chunk := make([]byte, n)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return nil, nil, err
		}
		data = append(data, chunk...)
		if _, err := br.ReadString('\n'); err != nil {
			return nil, nil, err
		}
	}
	trailer := map[string]string{}
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, ":"); ok {
			trailer[strings.ToLower(k)] = v
		}
		if line == "" || err != nil {
			return data, trailer, nil
		}
	}
}

func (f *Fake) listS3(w http.ResponseWriter, bucket, prefix string) {
	type content struct {
		Key          string
		Size         int
		ETag         string
		LastModified string
	}
	res := struct {
		XMLName     xml.Name `xml:"ListBucketResult"`
		Name        string
		Prefix      string
		KeyCount    int
		MaxKeys     int
		IsTruncated bool
		Contents    []content
	}{Name: bucket, Prefix: prefix, MaxKeys: 1000}
	for _, k := range f.list(bucket, prefix) {
		if o := f.get(bucket, k); o != nil {
			res.Contents = append(res.Contents, content{k, len(o.data), fmt.Sprintf(`"%d"`, o.gen), "2023-11-14T22:13:20.000Z"})
		}
	}
	res.KeyCount = len(res.Contents)
	w.Header().Set("Content-Type", "application/xml")
	xml.NewEncoder(w).Encode(res)
}

// gcsResource is the JSON API's object resource.
type gcsResource struct {
	Name       string            `json:"name"`
	Bucket     string            `json:"bucket"`
	Size       string            `json:"size"`
	Generation string            `json:"generation"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	CRC32C     string            `json:"crc32c,omitempty"`
}

func resource(bucket, key string, o *fakeObject) gcsResource {
	return gcsResource{Name: key, Bucket: bucket, Size: strconv.Itoa(len(o.data)),
		Generation: strconv.FormatInt(o.gen, 10), Metadata: o.meta, CRC32C: o.crc32c()}
}

func gcsError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg}})
}

func (f *Fake) serveGCS(w http.ResponseWriter, r *http.Request) {
	rest, upload := strings.CutPrefix(r.URL.Path, "/upload")
	rest = strings.TrimPrefix(rest, "/storage/v1/b/")
	bucket, rest, _ := strings.Cut(rest, "/")
	key, objPath := strings.CutPrefix(rest, "o/")
	if upload && r.Method == http.MethodPost {
		f.uploadGCS(w, r, bucket)
		return
	}
	if !objPath {
		if rest == "o" { // a listing
			var page struct {
				Items []gcsResource `json:"items"`
			}
			for _, k := range f.list(bucket, r.URL.Query().Get("prefix")) {
				if o := f.get(bucket, k); o != nil {
					page.Items = append(page.Items, resource(bucket, k, o))
				}
			}
			json.NewEncoder(w).Encode(page)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"name": bucket}) // every bucket exists
		return
	}
	if k, err := url.PathUnescape(key); err == nil {
		key = k
	}
	o := f.get(bucket, key)
	if o == nil {
		gcsError(w, http.StatusNotFound, "No such object: "+bucket+"/"+key)
		return
	}
	switch r.Method {
	case http.MethodDelete:
		f.remove(bucket, key)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodGet:
		if g := r.URL.Query().Get("ifGenerationMatch"); g != "" && g != strconv.FormatInt(o.gen, 10) {
			gcsError(w, http.StatusPreconditionFailed, "conditionNotMet")
			return
		}
		if r.URL.Query().Get("alt") != "media" {
			json.NewEncoder(w).Encode(resource(bucket, key, o))
			return
		}
		w.Header().Set("X-Goog-Generation", strconv.FormatInt(o.gen, 10))
		serveContent(w, r, o)
	}
}

// uploadGCS takes a multipart upload: the resource (name, metadata, an optional
// crc32c it checks), then the bytes.
func (f *Fake) uploadGCS(w http.ResponseWriter, r *http.Request, bucket string) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		gcsError(w, http.StatusBadRequest, err.Error())
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var res gcsResource
	var data []byte
	for i := 0; i < 2; i++ {
		p, err := mr.NextPart()
		if err == nil && i == 0 {
			err = json.NewDecoder(p).Decode(&res)
		} else if err == nil {
			data, err = io.ReadAll(p)
		}
		if err != nil {
			gcsError(w, http.StatusBadRequest, "bad multipart upload: "+err.Error())
			return
		}
	}
	o := &fakeObject{data: data}
	if res.CRC32C != "" && res.CRC32C != o.crc32c() {
		gcsError(w, http.StatusBadRequest, "Provided CRC32C \""+res.CRC32C+"\" doesn't match calculated CRC32C \""+o.crc32c()+"\".")
		return
	}
	f.put(bucket, res.Name, data, res.Metadata, true)
	json.NewEncoder(w).Encode(resource(bucket, res.Name, f.get(bucket, res.Name)))
}
