package store

import (
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
