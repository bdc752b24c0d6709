package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestManifestSchemaChecksums: the schema takes a manifest of either checksum and
// refuses one whose shards carry the other's field, both, or a malformed sum. (The
// command's --checksum is testdata/script/convert_shard_checksum.txt.)
func TestManifestSchemaChecksums(t *testing.T) {
	s := compileShardSchema(t, "manifest")
	old, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sharding", "v1-sha256", "whole", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, s, "a sha256 manifest of before crc32c", string(old))
	dir := shardCheckpoint(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), out, "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e")
	good := string(readFile(t, filepath.Join(out, "manifest.json")))
	checkSchema(t, s, "a crc32c manifest", good)
	sum := regexp.MustCompile(`"crc32c": "([0-9a-f]{8})"`).FindStringSubmatch(good)
	if sum == nil {
		t.Fatalf("no crc32c in the manifest:\n%s", good)
	}
	line := sum[0]
	for _, c := range [][2]string{
		{`"checksum": "crc32c"`, `"checksum": "sha256"`},
		{`"checksum": "crc32c"`, `"checksum": "md5"`},
		{line, `"sha256": "` + strings.Repeat("0", 64) + `"`},
		{line, line + `, "sha256": "` + strings.Repeat("0", 64) + `"`},
		{line, `"crc32c": "` + strings.ToUpper(sum[1]) + `"`},
		{line, `"bytes2": 1`},
	} {
		text := strings.Replace(good, c[0], c[1], 1)
		if text == good {
			t.Fatalf("%q is not in the manifest", c[0])
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(v) == nil {
			t.Errorf("the schema takes a manifest with %s in place of %s", c[1], c[0])
		}
	}
}
