package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Location
	}{
		{"s3://b/k/model.safetensors", Location{"s3", "b", "k/model.safetensors"}},
		{"gs://b/dir/", Location{"gs", "b", "dir/"}},
		{"gs://b", Location{"gs", "b", ""}},
		{"file:///tmp/x.bin", Location{"file", "", filepath.FromSlash("/tmp/x.bin")}},
		{"rel/x.bin", Location{"file", "", "rel/x.bin"}},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"s3:///k", "no bucket"},
		{"http://x/y", `scheme "http"`},
		{"file://host/x", `names host "host"`},
		{"gs://b/k?x=1", "'?'"},
		{"", "empty"},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Parse(%q) = %v; want an error saying %q", c.in, err, c.msg)
		}
	}
}

func TestJoinAndURL(t *testing.T) {
	l, _ := Parse("s3://b/out/")
	if got := Join(l, "w", "0_1.bin").String(); got != "s3://b/out/w/0_1.bin" {
		t.Errorf("Join = %s", got)
	}
	l, _ = Parse("gs://b")
	if got := Join(l, "m.json").String(); got != "gs://b/m.json" {
		t.Errorf("Join = %s", got)
	}
	if !IsURL("gs://b/x") || !IsURL("s3://b") || IsURL("file:///x") || IsURL("/x") {
		t.Error("IsURL")
	}
}

// TestErrorFields: the store's errors are *Error, naming the object as the user wrote
// it (or none, for a name that is no URL or path) and unwrapping to the cause.
func TestErrorFields(t *testing.T) {
	_, err := Parse("s3://")
	var se *Error
	if !errors.As(err, &se) || se.Name != "" || se.Err == nil {
		t.Errorf("Parse(s3://) = %#v, want an *Error without a Name", err)
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", "ftp://x")
	_, _, err = Open(context.Background(), "s3://b/k")
	if !errors.As(err, &se) || se.Name != "s3://b/k" {
		t.Errorf("Open with a bad endpoint = %#v, want an *Error named s3://b/k", err)
	}
	missing := filepath.Join(t.TempDir(), "none")
	b, key, err := Open(context.Background(), missing)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Stat(context.Background(), key)
	if !errors.As(err, &se) || se.Name != missing || !errors.Is(err, ErrNotExist) {
		t.Errorf("Stat of a missing file = %#v, want an *Error named %s that is ErrNotExist", err, missing)
	}
}
