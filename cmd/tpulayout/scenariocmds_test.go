package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
)

// moreScriptCmds are scenario commands beside script_test.go's: JSON checks and a
// file builder.
//
//	schema NAME FILE        FILE ("stdout" for the last command's) is valid under
//	                        docs/schema/NAME.json; "! schema" expects it refused
//	cmpjson FILE FILE2 [KEY]
//	                        the JSON documents in FILE (or the value of its
//	                        top-level KEY) and FILE2 are equal, whatever their spacing
//	npysafetensors OUT FILE.npy NAME...
//	                        write a safetensors file whose tensors NAME... each hold
//	                        the array of FILE.npy
var moreScriptCmds = map[string]func(*testscript.TestScript, bool, []string){
	"schema":         scriptSchema,
	"cmpjson":        scriptCmpJSON,
	"npysafetensors": scriptNPYSafetensors,
}

const schemaBase = "https://github.com/tpulayout/tpulayout/docs/schema/"

// scriptFile reads FILE of a scenario, or "stdout" for the last command's.
func scriptFile(ts *testscript.TestScript, name string) []byte {
	if name == "stdout" {
		return []byte(ts.ReadFile("stdout"))
	}
	b, err := os.ReadFile(ts.MkAbs(name))
	ts.Check(err)
	return b
}

// loadSchema compiles docs/schema/NAME.json, with manifest.json, which the sharded
// conversion's reports refer to, loaded under its $id.
func loadSchema(name string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	files := []string{"manifest"}
	if name != "manifest" {
		files = append(files, name)
	}
	for _, f := range files {
		file, err := os.Open(filepath.Join("..", "..", "docs", "schema", f+".json"))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(file)
		file.Close()
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(schemaBase+f+".json", doc); err != nil {
			return nil, err
		}
	}
	return c.Compile(schemaBase + name + ".json")
}

// compileShardSchema is loadSchema for a Go test.
func compileShardSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := loadSchema(name)
	if err != nil {
		t.Fatalf("schema of %s: %v", name, err)
	}
	return s
}

// checkSchema fails the test unless text is JSON that s accepts.
func checkSchema(t *testing.T, s *jsonschema.Schema, what, text string) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", what, err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s does not match its schema: %v\n%s", what, err, text)
	}
}

func scriptSchema(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: schema NAME FILE")
	}
	s, err := loadSchema(args[0])
	ts.Check(err)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(scriptFile(ts, args[1])))
	if err != nil {
		ts.Fatalf("%s is not JSON: %v", args[1], err)
	}
	err = s.Validate(v)
	if neg && err == nil {
		ts.Fatalf("docs/schema/%s.json accepts %s", args[0], args[1])
	}
	if !neg && err != nil {
		ts.Fatalf("%s does not match docs/schema/%s.json: %v", args[1], args[0], err)
	}
}

func scriptCmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: cmpjson FILE FILE2 [KEY]")
	}
	var vals [2]string
	for i, name := range args[:2] {
		var v any
		if err := json.Unmarshal(scriptFile(ts, name), &v); err != nil {
			ts.Fatalf("%s is not JSON: %v", name, err)
		}
		if i == 0 && len(args) == 3 {
			m, _ := v.(map[string]any)
			if _, ok := m[args[2]]; !ok {
				ts.Fatalf("%s has no key %q", name, args[2])
			}
			v = m[args[2]]
		}
		b, err := json.Marshal(v)
		ts.Check(err)
		vals[i] = string(b)
	}
	if (vals[0] == vals[1]) == neg {
		ts.Fatalf("%s and %s: %s\n%s", args[0], args[1], vals[0], vals[1])
	}
}

func scriptNPYSafetensors(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: npysafetensors OUT FILE.npy NAME...")
	}
	b, err := npy.Read(ts.MkAbs(args[1]))
	ts.Check(err)
	tensors := make([]safetensors.NamedBuffer, len(args)-2)
	for i, name := range args[2:] {
		tensors[i] = safetensors.NamedBuffer{Name: name, Buf: b}
	}
	ts.Check(safetensors.Write(ts.MkAbs(args[0]), tensors, nil))
}
