package convert

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// A bucket URL where only local files are taken is a usage error naming it as one,
// not "no such file or directory" (issue 44.9).
func TestBucketURLNotTaken(t *testing.T) {
	dir := t.TempDir()
	npy := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[8,128]", 2))
	for _, c := range []struct {
		run   func() error
		field string
		want  string
	}{
		{func() error {
			_, err := (&Job{In: "s3://b/in.npy", Out: filepath.Join(dir, "o"), To: "tpu:v5e"}).Run()
			return err
		}, "In", "In s3://b/in.npy is a bucket URL"},
		{func() error { _, err := (&Job{In: npy, Out: "gs://b/o.bin", To: "tpu:v5e"}).Run(); return err }, "Out", "Out gs://b/o.bin is a bucket URL"},
		{func() error {
			_, err := (&Job{In: npy, Out: "gs://b/od", All: true, To: "tpu:v5e"}).Run()
			return err
		}, "Out", "Out gs://b/od is a bucket URL"},
		{func() error {
			_, err := (&Check{Dump: "s3://b/d", Layout: "f32[8,128]", Ref: npy}).Run()
			return err
		}, "Dump", "Dump s3://b/d is a bucket URL"},
		{func() error {
			_, err := (&Check{Dump: npy, Layout: "f32[8,128]", Ref: "gs://b/r.npy"}).Run()
			return err
		}, "Ref", "Ref gs://b/r.npy is a bucket URL"},
		{func() error {
			return (&Job{Out: "s3://b/x.bin"}).WriteOutput(func(ImageWriter) error { return nil })
		}, "Out", "Out s3://b/x.bin is a bucket URL"},
	} {
		var e *Error
		if err := c.run(); !errors.As(err, &e) || e.Field != c.field || e.Kind != Setting || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v; want a setting error of %s saying %q", err, c.field, c.want)
		}
	}
}

// The refusal names the sharded conversion, which takes buckets, by its field Mesh, as
// the caller words it.
func TestBucketURLNamesMesh(t *testing.T) {
	_, err := (&Job{In: "s3://b/in.npy", Out: "o.bin", To: "tpu:v5e"}).Run()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v, want an *Error", err)
	}
	flag := func(f string) string { return "--" + strings.ToLower(f) }
	if got := e.Words(flag, nil); !strings.Contains(got, "a sharded conversion, convert --mesh, and by verify") || !strings.HasPrefix(got, "--in s3://b/in.npy") {
		t.Errorf("in the caller's words: %q", got)
	}
	if got := err.Error(); !strings.Contains(got, "convert Mesh,") {
		t.Errorf("in the package's words: %q", got)
	}
}
