package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// schemaCases are --json invocations covering each report's variants: sparse, scalar,
// empty and sub-byte layouts, padding and tail padding, tuples and header layouts,
// illegal and rank-1 blocks.
var schemaCases = map[string][][]string{
	"info": {
		{"bf16[5,300]"},
		{"bf16[256,1024]{1,0:T(8,128)(2,1)}"},
		{"s4[3,7]{0,1:T(2,8)L(64)}"},
		{"f32[]"},
		{"f32[0,128]"},
		{"pred[9,130]", "--to", "tpu:v4"},
		{"f32[4,8]{1,0:D(D,C)}"},
		{"f32[2,3,4]{2,1,0:T(*,2,4)}"},
	},
	"explain": {
		{"f32[3,5]{1,0:T(2,4)}", "1,3"},
		{"f32[3,5]{1,0:T(2,4)}", "--offset", "14"},
		{"s4[3,7]{0,1:T(2,8)L(64)}", "--offset", "63"},
		{"s4[3,7]{0,1:T(2,8)}", "2,6"},
		{"f32[]", "()"},
		{"f32[2,3,4]{2,1,0:T(*,2,4)}", "1,2,3"},
	},
	"hlo": {
		{"../../testdata/hlo/AddDependency.hlo"},
		{"../../testdata/hlo/AddDependency.hlo", "--all", "--sort", "padding"},
		{"../../testdata/hlo/AddDependency.hlo", "--to", "tpu:v5e"},
	},
	"blockspec": {
		{"--array", "bf16[4096,4096]", "--block", "256,512"},
		{"--array", "bf16[4096,4096]", "--block", "256,500"},
		{"--array", "f32[4096]", "--block", "1024", "--operands", "1"},
		{"--array", "s8[100,300]", "--block", "100,300", "--gen", "v4"},
	},
}

func compileSchema(t *testing.T, verb string) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "docs", "schema", verb+".json"))
	if err != nil {
		t.Fatalf("schema of %s: %v", verb, err)
	}
	return s
}

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

// TestJSONSchemas checks every report's --json output, and the JSON goldens, against
// the schema docs/schema/VERB.json documents.
func TestJSONSchemas(t *testing.T) {
	hlos, _ := filepath.Glob("../../testdata/hlo/*.hlo")
	for _, f := range hlos {
		if _, refused := refusedByXLA[filepath.Base(f)]; refused {
			continue // TestHLOCorpus checks the refusal
		}
		schemaCases["hlo"] = append(schemaCases["hlo"], []string{f}, []string{f, "--all"})
	}
	for verb, cases := range schemaCases {
		s := compileSchema(t, verb)
		for _, c := range cases {
			args := append([]string{verb, "--json"}, c...)
			out, errOut, code := runCmd(t, args...)
			// An illegal block exits 1 after its report.
			if code != 0 && !(verb == "blockspec" && code == 1 && out != "") {
				t.Fatalf("tpulayout %q: exit %d: %s", args, code, errOut)
			}
			checkSchema(t, s, strings.Join(args, " "), out)
		}
		goldens, _ := filepath.Glob(filepath.Join("testdata", verb+"_*json.golden"))
		for _, g := range goldens {
			b, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			checkSchema(t, s, g, string(b))
		}
	}
}

// TestJSONSchemasCatch makes sure the schemas can fail: a report with a field they do
// not document, or a documented field missing, is refused.
func TestJSONSchemasCatch(t *testing.T) {
	s := compileSchema(t, "explain")
	good := mustRun(t, "explain", "--json", "f32[3,5]{1,0:T(2,4)}", "1,3")
	for _, bad := range []string{
		strings.Replace(good, `"offset"`, `"offset_elements"`, 1),
		strings.Replace(good, `"padding": false`, `"padding": true`, 1), // padding with an index
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(v) == nil {
			t.Errorf("the explain schema accepts:\n%s", bad)
		}
	}
}

// The Python package's info adds the tiling figures to the CLI's: the schema documents
// them too.
func TestJSONSchemaInfoWithTiling(t *testing.T) {
	s := compileSchema(t, "info")
	for _, text := range []string{"bf16[256,1024]{1,0:T(8,128)(2,1)}", "f32[3,5]", "s4[3,7]{0,1:T(2,8)L(64)}", "f32[]"} {
		sh, err := layout.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := layout.Compile(sh)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(report.NewInfo(ix).AddTiling(tpu.NoGeneration).AddInsight(tpu.V5e))
		if err != nil {
			t.Fatal(err)
		}
		checkSchema(t, s, text+" with tiling", string(b))
	}
}
