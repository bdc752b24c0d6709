package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// s3Backend is an S3 or S3-compatible bucket, through minio-go (its Core API: one
// HTTP request per call, so Bucket's retries see every failure).
type s3Backend struct {
	c      minio.Core
	bucket string
	creds  *credentials.Credentials
}

func init() {
	// With MaxRetries 1 minio-go still sleeps up to this unit after a retryable
	// failure before giving up; Bucket does the backing off, so minio-go need not.
	minio.DefaultRetryUnit = time.Millisecond
}

// s3Endpoint is the endpoint from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (the AWS
// SDKs' settings), or AWS's own; custom says whether it was set.
func s3Endpoint() (host string, secure, custom bool, err error) {
	e := os.Getenv("AWS_ENDPOINT_URL_S3")
	if e == "" {
		e = os.Getenv("AWS_ENDPOINT_URL")
	}
	if e == "" {
		return "s3.amazonaws.com", true, false, nil
	}
	u, err := url.Parse(e)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return "", false, false, fmt.Errorf("endpoint %q (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) is not http(s)://HOST[:PORT]", e)
	}
	return u.Host, u.Scheme == "https", true, nil
}

// s3Credentials is the AWS SDKs' default chain: the environment, the shared
// credentials file, then the container, web identity or instance role (skipped when
// AWS_EC2_METADATA_DISABLED is true and no container or web identity is configured).
func s3Credentials() *credentials.Credentials {
	chain := []credentials.Provider{&credentials.EnvAWS{}, &credentials.FileAWSCredentials{}}
	imdsOff := strings.EqualFold(os.Getenv("AWS_EC2_METADATA_DISABLED"), "true")
	roleSet := os.Getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") != "" ||
		os.Getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI") != "" || os.Getenv("AWS_WEB_IDENTITY_TOKEN_FILE") != ""
	if !imdsOff || roleSet {
		chain = append(chain, &credentials.IAM{})
	}
	return credentials.NewChainCredentials(chain)
}

func newS3(bucket string) (backend, error) {
	host, secure, custom, err := s3Endpoint()
	if err != nil {
		return nil, err
	}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if region == "" && custom {
		region = "us-east-1" // what S3-compatible stores expect; saves a location lookup
	}
	lookup := minio.BucketLookupAuto
	if custom {
		lookup = minio.BucketLookupPath
	}
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, err
	}
	tr.MaxIdleConnsPerHost = 64 // ranged reads in flight reuse their connections
	creds := s3Credentials()
	c, err := minio.NewCore(host, &minio.Options{
		Creds: creds, Secure: secure, Region: region, BucketLookup: lookup,
		Transport: tr, MaxRetries: 1, // Bucket retries, and sees each failure
	})
	if err != nil {
		return nil, err
	}
	return &s3Backend{c: *c, bucket: bucket, creds: creds}, nil
}

// s3Err turns minio's errors into this package's: ErrNotExist, StatusError.
func (s *s3Backend) s3Err(err error) error {
	if err == nil {
		return nil
	}
	r := minio.ToErrorResponse(err)
	r.Code, r.Message = quoteControls(r.Code), quoteControls(r.Message)
	switch {
	case r.Code == "NoSuchBucket":
		return fmt.Errorf("bucket %q %w", s.bucket, ErrNotExist)
	case r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound:
		return fmt.Errorf("object %w", ErrNotExist)
	case r.Code == "PreconditionFailed" || r.StatusCode == http.StatusPreconditionFailed:
		return ErrChanged
	case r.Code == "BadDigest" || r.Code == "InvalidChecksum":
		return fmt.Errorf("%w (%s: %s)", ErrChecksum, r.Code, r.Message)
	case r.StatusCode == http.StatusForbidden && s.anonymous():
		return &StatusError{Code: r.StatusCode, Msg: "access denied, and no S3 credentials were found " +
			"(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE with a shared credentials file, or a role)"}
	case r.StatusCode != 0:
		msg := r.Code
		if r.Message != "" {
			msg += ": " + r.Message
		}
		return &StatusError{Code: r.StatusCode, Msg: msg}
	}
	return err
}

// anonymous reports whether the credential chain found nothing (requests then go
// unsigned, which a public bucket allows).
func (s *s3Backend) anonymous() bool {
	v, err := s.creds.GetWithContext(nil)
	return err != nil || v.SignerType == credentials.SignatureAnonymous || v.AccessKeyID == ""
}

func (s *s3Backend) bucketExists(ctx context.Context) (bool, error) {
	return s.c.BucketExists(ctx, s.bucket)
}

func (s *s3Backend) stat(ctx context.Context, key string) (Attrs, error) {
	// With the checksum mode on, the answer carries the CRC-32C that the server
	// checked the upload's bytes against, when the upload declared one.
	oi, err := s.c.StatObject(ctx, s.bucket, trimKey(key), minio.StatObjectOptions{Checksum: true})
	if err != nil {
		return Attrs{}, s.s3Err(err)
	}
	meta := map[string]string{}
	for k, v := range oi.UserMetadata {
		meta[strings.ToLower(k)] = v
	}
	a := Attrs{Key: key, Size: oi.Size, Version: oi.ETag, Metadata: meta}
	if oi.ChecksumCRC32C != "" {
		c, err := base64.StdEncoding.DecodeString(oi.ChecksumCRC32C)
		if err != nil || len(c) != 4 {
			return Attrs{}, fmt.Errorf("x-amz-checksum-crc32c %q is not 4 bytes in base64", quoteControls(oi.ChecksumCRC32C))
		}
		a.CRC32C = c
	}
	return a, nil
}

func (s *s3Backend) readAt(ctx context.Context, a Attrs, p []byte, off int64) (int, error) {
	var o minio.GetObjectOptions
	if err := o.SetRange(off, off+int64(len(p))-1); err != nil {
		return 0, err
	}
	if a.Version != "" {
		o.SetMatchETag(a.Version)
	}
	body, _, h, err := s.c.GetObject(ctx, s.bucket, trimKey(a.Key), o)
	if err != nil {
		return 0, s.s3Err(err)
	}
	defer body.Close()
	if err := checkContentRange(h.Get("Content-Range"), off, len(p), a.Size); err != nil {
		return 0, err
	}
	return readBody(ctx, body, p)
}

// maxSinglePut is the largest object S3 takes in one PutObject.
const maxSinglePut = 5 << 30

// put uploads the object. With a crc32c, an object up to maxSinglePut goes in one
// PutObject declaring it (x-amz-checksum-crc32c), which the server checks, answering
// BadDigest when the bytes differ; the payload is then not also signed with SHA-256
// (UNSIGNED-PAYLOAD over plain HTTP too), since the CRC-32C already covers it. Larger
// ones, and uploads without a crc32c, go in parts of 16 MiB as before.
func (s *s3Backend) put(ctx context.Context, key string, r io.Reader, size int64, meta map[string]string, crc32c []byte) error {
	if crc32c != nil && size >= 0 && size <= maxSinglePut {
		um := make(map[string]string, len(meta)+1)
		for k, v := range meta {
			um[k] = v
		}
		um["x-amz-checksum-crc32c"] = base64.StdEncoding.EncodeToString(crc32c)
		_, err := s.c.PutObject(ctx, s.bucket, trimKey(key), r, size, "", "", minio.PutObjectOptions{
			UserMetadata: um, ContentType: "application/octet-stream", DisableContentSha256: true,
		})
		return s.s3Err(err)
	}
	_, err := s.c.Client.PutObject(ctx, s.bucket, trimKey(key), r, size, minio.PutObjectOptions{
		UserMetadata: meta, ContentType: "application/octet-stream", PartSize: 16 << 20, // one part buffered at a time: bounded memory
	})
	return s.s3Err(err)
}

func (s *s3Backend) list(ctx context.Context, prefix string) ([]Attrs, error) {
	var as []Attrs
	for oi := range s.c.Client.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: trimKey(prefix), Recursive: true}) {
		if oi.Err != nil {
			return nil, s.s3Err(oi.Err)
		}
		received(ctx)
		as = append(as, Attrs{Key: oi.Key, Size: oi.Size, Version: oi.ETag})
	}
	return as, nil
}

func (s *s3Backend) remove(ctx context.Context, key string) error {
	return s.s3Err(s.c.RemoveObject(ctx, s.bucket, trimKey(key), minio.RemoveObjectOptions{}))
}
