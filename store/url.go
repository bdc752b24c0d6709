package store

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/internal/bucketurl"
)

// Location is a parsed object URL.
type Location struct {
	Scheme string // "s3", "gs" or "file"
	Bucket string // empty for "file"
	Key    string // the object key; for "file", the path
}

// String is the URL of the location: scheme://bucket/key, or the plain path of a file.
func (l Location) String() string {
	if l.Scheme == "file" {
		return l.Key
	}
	return l.Scheme + "://" + l.Bucket + "/" + l.Key
}

// IsURL reports whether name is an object-store URL (s3:// or gs://) rather than a
// local path or file:// URL.
func IsURL(name string) bool { return bucketurl.Is(name) }

// Parse parses s3://bucket/key, gs://bucket/key, file:///path or a plain path. The
// key may be empty (a bucket's root) and may end in "/" (a prefix).
func Parse(name string) (Location, error) {
	scheme, rest, ok := strings.Cut(name, "://")
	if !ok {
		if name == "" {
			return Location{}, &Error{Err: errors.New("empty path")}
		}
		return Location{Scheme: "file", Key: name}, nil
	}
	switch scheme {
	case "file":
		u, err := url.Parse(name)
		if err != nil {
			return Location{}, &Error{Err: fmt.Errorf("bad file URL %q: %w", name, err)}
		}
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, &Error{Err: fmt.Errorf("file URL %q names host %q; only local files (file:///path) are read", name, u.Host)}
		}
		if u.Path == "" {
			return Location{}, &Error{Err: fmt.Errorf("file URL %q has no path", name)}
		}
		return Location{Scheme: "file", Key: filepath.FromSlash(u.Path)}, nil
	case "s3", "gs":
		bucket, key, _ := strings.Cut(rest, "/")
		if bucket == "" {
			return Location{}, &Error{Err: fmt.Errorf("URL %q has no bucket (want %s://BUCKET/KEY)", name, scheme)}
		}
		if strings.ContainsAny(bucket, "?#") || strings.ContainsAny(key, "?#") {
			return Location{}, &Error{Err: fmt.Errorf("URL %q holds '?' or '#'; object keys here are plain paths", name)}
		}
		return Location{Scheme: scheme, Bucket: bucket, Key: key}, nil
	}
	return Location{}, &Error{Err: fmt.Errorf("URL %q has scheme %q; want s3://, gs://, file:// or a plain path", name, scheme)}
}

// Join appends slash-separated elements to a key or path.
func Join(l Location, elem ...string) Location {
	if l.Scheme == "file" {
		l.Key = filepath.Join(append([]string{l.Key}, elem...)...)
		return l
	}
	k := strings.TrimSuffix(l.Key, "/")
	for _, e := range elem {
		if k == "" {
			k = e
		} else {
			k += "/" + e
		}
	}
	l.Key = k
	return l
}
