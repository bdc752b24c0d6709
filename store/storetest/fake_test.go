package storetest

import (
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// step is one request to a server and what its answer holds.
type step struct {
	method, path string
	header       map[string]string
	body         string
	status       int
	want         []string // in the body, or "Header-Name: value" among the headers
}

// do sends each step to the server at u, in order, and checks its answer.
func do(t *testing.T, u string, steps []step) {
	t.Helper()
	for _, s := range steps {
		req, err := http.NewRequest(s.method, u+s.path, strings.NewReader(s.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range s.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", s.method, s.path, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != s.status {
			t.Errorf("%s %s: %s (%v), want %d; body %q", s.method, s.path, resp.Status, err, s.status, b)
			continue
		}
		for _, w := range s.want {
			k, v, isHeader := strings.Cut(w, ": ")
			isHeader = isHeader && !strings.ContainsAny(k, ` "`)
			if isHeader && resp.Header.Get(k) != v || !isHeader && !strings.Contains(string(b), w) {
				t.Errorf("%s %s: no %q in %v %q", s.method, s.path, w, resp.Header, b)
			}
		}
	}
}

// crc is the CRC-32C of s as S3 and GCS write it (base64 of its big-endian bytes).
func crc(s string) string {
	sum := crc32.Checksum([]byte(s), crc32.MakeTable(crc32.Castagnoli))
	return base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, sum))
}

func TestFakeS3(t *testing.T) {
	_, u := NewFake(t)
	trailer := map[string]string{"X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER"}
	do(t, u, []step{
		{"PUT", "/b/d/k", map[string]string{"X-Amz-Meta-Sha256": "abc"}, "hello", 200, []string{`Etag: "1"`}},
		{"HEAD", "/b/d/k", nil, "", 200, []string{"X-Amz-Meta-Sha256: abc", "Content-Length: 5", "X-Amz-Checksum-Crc32c: "}},
		{"GET", "/b/d/k", map[string]string{"Range": "bytes=1-3"}, "", 206, []string{"ell", "Content-Range: bytes 1-3/5"}},
		{"GET", "/b/none", nil, "", 404, []string{"<Code>NoSuchKey</Code>"}},
		{"HEAD", "/b/none", nil, "", 404, nil},
		{"GET", "/b?location", nil, "", 200, []string{"<LocationConstraint"}},
		{"HEAD", "/b", nil, "", 200, nil},
		{"PUT", "/b/e", map[string]string{"X-Amz-Checksum-Crc32c": crc("other")}, "bytes", 400, []string{"<Code>BadDigest</Code>"}},
		{"PUT", "/b/e", map[string]string{"X-Amz-Checksum-Crc32c": crc("bytes")}, "bytes", 200, nil},
		{"GET", "/b/e", map[string]string{"X-Amz-Checksum-Mode": "ENABLED"}, "", 200, []string{"bytes", "X-Amz-Checksum-Crc32c: " + crc("bytes")}},
		{"PUT", "/b/c", trailer, "5;chunk-signature=x\r\nhello\r\n0\r\nx-amz-checksum-crc32c:" + crc("hello") + "\r\n\r\n", 200, nil},
		{"GET", "/b/c", map[string]string{"X-Amz-Checksum-Mode": "enabled"}, "", 200, []string{"hello", "X-Amz-Checksum-Crc32c: " + crc("hello")}},
		{"PUT", "/b/c", trailer, "5\r\nhello\r\n0\r\nx-amz-checksum-crc32c:" + crc("world") + "\r\n\r\n", 400, []string{"BadDigest"}},
		{"PUT", "/b/c", trailer, "zz\r\nhello", 400, []string{"IncompleteBody"}},
		{"PUT", "/b/c", trailer, "9\r\nhello", 400, []string{"IncompleteBody"}},
		{"PUT", "/b/m?uploads", nil, "", 501, []string{"multipart uploads"}},
		{"POST", "/b/m", nil, "", 501, []string{"NotImplemented"}},
		{"GET", "/b?list-type=2&prefix=d/", nil, "", 200, []string{"<Key>d/k</Key><Size>5</Size>", "<KeyCount>1</KeyCount>"}},
		{"DELETE", "/b/d/k", nil, "", 204, nil},
		{"HEAD", "/b/d/k", nil, "", 404, nil},
		{"GET", "/b?list-type=2&prefix=d/", nil, "", 200, []string{"<KeyCount>0</KeyCount>"}},
	})
}

// multipartBody is a GCS multipart upload's body: the resource, then the bytes.
func multipartBody(resource, data string) string {
	return "--B\r\nContent-Type: application/json\r\n\r\n" + resource +
		"\r\n--B\r\nContent-Type: application/octet-stream\r\n\r\n" + data + "\r\n--B--\r\n"
}

func TestFakeGCS(t *testing.T) {
	_, u := NewFake(t)
	up := map[string]string{"Content-Type": "multipart/related; boundary=B"}
	const upload = "/upload/storage/v1/b/b/o?uploadType=multipart"
	do(t, u, []step{
		{"POST", upload, up, multipartBody(`{"name":"g/x","metadata":{"m":"v"}}`, "hello"), 200, []string{`"name":"g/x"`, `"size":"5"`, `"crc32c":"` + crc("hello")}},
		{"GET", "/storage/v1/b/b/o/g%2Fx", nil, "", 200, []string{`"metadata":{"m":"v"}`, `"generation":"1"`}},
		{"GET", "/storage/v1/b/b/o/g%2Fx?alt=media", map[string]string{"Range": "bytes=0-1"}, "", 206, []string{"he", "X-Goog-Generation: 1"}},
		{"GET", "/storage/v1/b/b/o/g%2Fx?alt=media&ifGenerationMatch=7", nil, "", 412, []string{"conditionNotMet"}},
		{"GET", "/storage/v1/b/b/o/none", nil, "", 404, []string{"No such object: b/none"}},
		{"GET", "/storage/v1/b/b/o?prefix=g/", nil, "", 200, []string{`"items":[{"name":"g/x"`}},
		{"GET", "/storage/v1/b/b", nil, "", 200, []string{`"name":"b"`}},
		{"POST", upload, up, multipartBody(`{"name":"y","crc32c":"`+crc("other")+`"}`, "bytes"), 400, []string{`doesn't match calculated CRC32C`}},
		{"POST", upload, up, multipartBody(`{"name":"y",`, "bytes"), 400, []string{"bad multipart upload"}},
		{"POST", upload, up, "--B\r\n", 400, []string{"bad multipart upload"}},
		{"POST", upload, map[string]string{"Content-Type": ";"}, "", 400, []string{"mime"}},
		{"DELETE", "/storage/v1/b/b/o/g%2Fx", nil, "", 204, nil},
		{"GET", "/storage/v1/b/b/o/g%2Fx", nil, "", 404, nil},
		{"GET", "/storage/v1/b/b/o?prefix=g/", nil, "", 200, []string{`"items":null`}},
	})
}

// Put stores an object that both schemes read, metadata and all.
func TestFakePut(t *testing.T) {
	f, u := NewFake(t)
	f.Put("b", "k", []byte("data"), map[string]string{"sha256": "lies"})
	do(t, u, []step{
		{"GET", "/b/k", nil, "", 200, []string{"data", "X-Amz-Meta-Sha256: lies"}},
		{"GET", "/storage/v1/b/b/o/k", nil, "", 200, []string{`"sha256":"lies"`, `"crc32c":"` + crc("data")}},
	})
}

func TestAllAndPoint(t *testing.T) {
	t.Setenv("TPULAYOUT_TEST_S3", "")
	t.Setenv("TPULAYOUT_TEST_GCS", "")
	ss := All(t)
	if len(ss) != 2 || ss[0].Name() != "s3-fake" || ss[1].Name() != "gs-fake" || ss[0].Fake != ss[1].Fake {
		t.Fatalf("All: %+v", ss)
	}
	for _, s := range ss {
		s.Point(t, s.Endpoint)
	}
	if os.Getenv("AWS_ENDPOINT_URL_S3") != ss[0].Endpoint || os.Getenv("STORAGE_EMULATOR_HOST") != ss[1].Endpoint || os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		t.Errorf("Point: %q, %q", os.Getenv("AWS_ENDPOINT_URL_S3"), os.Getenv("STORAGE_EMULATOR_HOST"))
	}
	if a, b := ss[0].NewBucket(t), ss[0].NewBucket(t); a == b {
		t.Errorf("two buckets named %s", a)
	}
	if (Server{Scheme: "gs"}).Name() != "gs" {
		t.Error("a real server's name")
	}
	t.Setenv("TPULAYOUT_TEST_S3", "http://s3.invalid")
	t.Setenv("TPULAYOUT_TEST_GCS", "http://gcs.invalid")
	if ss := All(t); len(ss) != 4 || ss[2].Endpoint != "http://s3.invalid" || ss[3].Fake != nil {
		t.Errorf("All with servers: %+v", ss)
	}
	if ss := Servers(t); len(ss) != 2 || ss[1].Scheme != "gs" {
		t.Errorf("Servers: %+v", ss)
	}
}
