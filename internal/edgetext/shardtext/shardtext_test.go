package shardtext

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/store"
)

const ckpt = "../../../testdata/sharding/mesh2d_both.safetensors"

// flag is a command line's words for sharding's fields.
func flag(f string) string { return "--" + strings.ToLower(f) }

// TestText: package sharding's errors as the command prints them, each field named by
// the caller, without the packages' prefixes and without a cause's repeated path.
func TestText(t *testing.T) {
	dir := t.TempDir()
	ok := sharding.ConvertOptions{Checkpoint: ckpt, Out: filepath.Join(dir, "ok"), Mesh: "data=2,model=4", Spec: `P("data", "model")`, To: "tpu:v5e"}
	if _, err := sharding.Convert(ok); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(dir, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	missing := filepath.Join(dir, "none.safetensors")
	gatherTo := filepath.Join(dir, "no", "g.safetensors")
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"no spec", func() error {
			o := ok
			o.Spec, o.Out = "", filepath.Join(dir, "a")
			_, err := sharding.Convert(o)
			return err
		}, "a sharded conversion needs one of --spec (one PartitionSpec for all tensors) or --rules FILE"},
		{"missing checkpoint", func() error {
			o := ok
			o.Checkpoint, o.Out = missing, filepath.Join(dir, "b")
			_, err := sharding.Convert(o)
			return err
		}, "cannot read IN " + missing + ": open " + missing + ": no such file or directory"},
		{"missing checkpoint URL", func() error {
			o := ok
			o.Checkpoint, o.Out = "file://"+missing, filepath.Join(dir, "b")
			_, err := sharding.Convert(o)
			return err
		}, "cannot read IN file://" + missing + ": open " + missing + ": no such file or directory"},
		{"gather into no directory", func() error {
			_, err := sharding.GatherOutdir(ok.Out, gatherTo)
			return err
		}, "cannot write OUT " + gatherTo + ": no such file or directory"},
		{"not empty", func() error {
			o := ok
			o.Out = full
			_, err := sharding.Convert(o)
			return err
		}, "cannot write OUT " + full + ": " + full + " is not empty; the output goes into a new or empty directory (--force replaces one that a sharded conversion wrote)"},
		{"owned", func() error {
			o := ok
			o.Out, o.Force = full, true
			_, err := sharding.Convert(o)
			return err
		}, "cannot write OUT " + full + ": --force replaces only a directory that a sharded conversion wrote, and OUTDIR " + full + " has no manifest.json, the mark of a sharded conversion"},
		{"indivisible", func() error {
			o := ok
			o.Mesh, o.Out = "data=2,model=3", filepath.Join(dir, "c")
			_, err := sharding.Convert(o)
			return err
		}, `tensor "x" (dims [16,256]): dim 1 of size 256 is not divisible by 3, the product of the mesh axes model(3) that spec P("data", "model") shards it over`},
		{"checkpoint URL's bucket unusable", func() error {
			t.Setenv("AWS_ENDPOINT_URL_S3", "ftp://x")
			o := ok
			o.Checkpoint, o.Out = "s3://b/m.safetensors", filepath.Join(dir, "d")
			_, err := sharding.Convert(o)
			return err
		}, `cannot read IN s3://b/m.safetensors: endpoint "ftp://x" (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) is not http(s)://HOST[:PORT]`},
		{"not sharding's", func() error { return errors.New("sharding: layout: bad tile") }, "bad tile"},
	} {
		err := c.err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if got := Text(err, flag); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestStoreWords: a store.Error is quoted by its fields, the name dropped only for the
// one that the error is on the object the message names; one it wraps keeps its name.
func TestStoreWords(t *testing.T) {
	inner := &store.Error{Name: "gs://b/shard-1.safetensors", Err: store.ErrNotExist}
	outer := &store.Error{Name: "gs://b/index.json", Err: fmt.Errorf("index: %w", inner)}
	for _, c := range []struct {
		err        error
		name, want string
	}{
		{outer, "gs://b/index.json", "index: gs://b/shard-1.safetensors: does not exist"},
		{outer, "gs://b/other.json", "gs://b/index.json: index: gs://b/shard-1.safetensors: does not exist"},
		{fmt.Errorf("reading: %w", inner), "gs://b/shard-1.safetensors", "reading: gs://b/shard-1.safetensors: does not exist"},
		{&store.Error{Err: errors.New(`URL "s3://" has no bucket`)}, "s3://", `URL "s3://" has no bucket`},
	} {
		if got := storeWords(c.err, stripPrefixes(c.err.Error()), c.name); got != c.want {
			t.Errorf("%v named %s:\ngot  %s\nwant %s", c.err, c.name, got, c.want)
		}
	}
}
