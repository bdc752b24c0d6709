package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestShardChecksumFlag: --checksum sha256 writes sha256 sums that verify and gather
// check, crc32c is the default, and a bad or misplaced --checksum is a usage error.
func TestShardChecksumFlag(t *testing.T) {
	dir := shardCheckpoint(t)
	in := filepath.Join(dir, "model.safetensors")
	conv := []string{"convert", in, "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e"}
	for _, alg := range []string{"", "crc32c", "sha256"} {
		out := filepath.Join(t.TempDir(), "out")
		args := append(conv, out)
		if alg != "" {
			args = append(args, "--checksum", alg)
		}
		mustRun(t, args...)
		text := string(readFile(t, filepath.Join(out, "manifest.json")))
		want := alg
		if want == "" {
			want = "crc32c"
		}
		img := filepath.Join(out, "embed", "0_0.bin")
		sum := crc32cHex(readFile(t, img))
		if want == "sha256" {
			sum = sha256Hex(readFile(t, img))
		}
		if !strings.Contains(text, `"checksum": "`+want+`"`) || !strings.Contains(text, `"`+want+`": "`+sum+`"`) {
			t.Errorf("--checksum %q: the manifest lacks %s %s:\n%s", alg, want, sum, text)
		}
		if v := mustRun(t, "verify", out); !strings.Contains(v, "result: OK") {
			t.Errorf("--checksum %q: verify printed %q", alg, v)
		}
		mustRun(t, "gather", out, filepath.Join(t.TempDir(), "g.safetensors"))
		data := readFile(t, img)
		data[7] ^= 0x80
		writeText(t, img, string(data))
		if v, _, code := runCmd(t, "verify", out); code != 1 || !strings.Contains(v, "embed/0_0.bin: "+want+" ") {
			t.Errorf("--checksum %q: verify of a changed byte: exit %d, %q", alg, code, v)
		}
	}
	wantUsageError(t, append(conv, filepath.Join(t.TempDir(), "o"), "--checksum", "md5"), `bad --checksum "md5": want crc32c (the default) or sha256`)
	wantUsageError(t, []string{"convert", in, filepath.Join(t.TempDir(), "o.safetensors"), "--to", "tpu:v5e", "--checksum", "sha256"}, "--checksum need --mesh")
}

// TestManifestSchemaChecksums: the schema takes a manifest of either checksum and
// refuses one whose shards carry the other's field, both, or a malformed sum.
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
	var m struct {
		Tensors []struct {
			Shards []struct {
				CRC32C string `json:"crc32c"`
			} `json:"shards"`
		} `json:"tensors"`
	}
	json.Unmarshal([]byte(good), &m)
	sum := m.Tensors[0].Shards[0].CRC32C
	line := `"crc32c": "` + sum + `"`
	for _, c := range [][2]string{
		{`"checksum": "crc32c"`, `"checksum": "sha256"`},
		{`"checksum": "crc32c"`, `"checksum": "md5"`},
		{line, `"sha256": "` + strings.Repeat("0", 64) + `"`},
		{line, line + `, "sha256": "` + strings.Repeat("0", 64) + `"`},
		{line, `"crc32c": "` + strings.ToUpper(sum) + `"`},
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
