package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaBase = "https://github.com/tpulayout/tpulayout/docs/schema/"

// compileShardSchema compiles docs/schema/NAME.json with manifest.json, which the
// sharded conversion's reports refer to, loaded under its $id.
func compileShardSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	files := []string{"manifest"}
	if name != "manifest" {
		files = append(files, name)
	}
	for _, f := range files {
		file, err := os.Open(filepath.Join("..", "..", "docs", "schema", f+".json"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(file)
		file.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(schemaBase+f+".json", doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile(schemaBase + name + ".json")
	if err != nil {
		t.Fatalf("schema of %s: %v", name, err)
	}
	return s
}

// TestShardJSONSchemas checks the --json output of a sharded conversion (one process
// and two), manifest merge, verify (passing and failing) and gather against their
// schemas, and that the JSON says what the text says.
func TestShardJSONSchemas(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join("..", "..", "testdata", "sharding", "mesh2d_both.safetensors")
	conv := []string{"convert", "--mesh", "data=2,model=4", "--spec", `P("data", "model")`, "--to", "tpu:v5e", ckpt}
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	shard, manifest, verify := compileShardSchema(t, "shard"), compileShardSchema(t, "manifest"), compileShardSchema(t, "verify")

	out := mustRun(t, append(conv, one, "--json")...)
	checkSchema(t, shard, "convert --mesh --json", out)
	var sum struct {
		ManifestPath string `json:"manifest_path"`
		Manifest     any    `json:"manifest"`
	}
	json.Unmarshal([]byte(out), &sum)
	if sum.ManifestPath != one+"/manifest.json" || !sameJSON(t, sum.Manifest, filepath.Join(one, "manifest.json")) {
		t.Errorf("convert --json names %s and a manifest unlike the one written", sum.ManifestPath)
	}
	for i := range 2 {
		out := mustRun(t, append(conv, two, "--json", "--process", []string{"0/2", "1/2"}[i])...)
		checkSchema(t, shard, "convert --mesh --process --json", out)
	}
	out = mustRun(t, "manifest", "merge", two, "--json")
	checkSchema(t, manifest, "manifest merge --json", out)
	var merged any
	json.Unmarshal([]byte(out), &merged)
	if !sameJSON(t, merged, filepath.Join(two, "manifest.json")) || !sameJSON(t, merged, filepath.Join(one, "manifest.json")) {
		t.Error("manifest merge --json is not the manifest written, or not that of one process")
	}

	// A guessed default: in the summary, and in the note on stderr.
	notes := captureNotes(t)
	out = mustRun(t, "convert", filepath.Join("..", "..", "testdata", "sharding", "s8_quads.safetensors"),
		filepath.Join(dir, "s8"), "--mesh", "x=2", "--spec", "P()", "--to", "tpu:v5e", "--json")
	checkSchema(t, shard, "convert --mesh --json with a guess", out)
	var guessed struct {
		Guessed []struct{ Tensor, Layout, Why string } `json:"guessed"`
	}
	json.Unmarshal([]byte(out), &guessed)
	if g := guessed.Guessed; len(g) != 1 || !strings.Contains(notes.String(), "(first "+g[0].Tensor+" "+g[0].Layout+": "+g[0].Why+")") {
		t.Errorf("guessed %+v; the note says %q", g, notes.String())
	}

	checkSchema(t, verify, "verify --json", mustRun(t, "verify", one, "--json"))
	out = mustRun(t, "gather", one, filepath.Join(dir, "g.safetensors"), "--json")
	checkSchema(t, manifest, "gather --json", out)

	img := filepath.Join(one, "x", "0_1.bin")
	data, _ := os.ReadFile(img)
	data[0] ^= 1
	os.WriteFile(img, data, 0o644)
	out, errOut, code := runCmd(t, "verify", one, "--json")
	checkSchema(t, verify, "failing verify --json", out)
	if code != 1 || !strings.Contains(out, `"file": "x/0_1.bin"`) || errOut != "tpulayout verify: 1 problem found\n" {
		t.Errorf("a changed image: exit %d, stderr %q, report\n%s", code, errOut, out)
	}
}

// sameJSON reports whether v is the JSON in file.
func sameJSON(t *testing.T, v any, file string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var w any
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	x, _ := json.Marshal(v)
	y, _ := json.Marshal(w)
	return string(x) == string(y)
}
