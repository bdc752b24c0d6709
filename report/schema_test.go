package report_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// checkSchema fails the test unless data is JSON that docs/schema/NAME.json accepts.
func checkSchema(t *testing.T, name, what string, data []byte) {
	t.Helper()
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "docs", "schema", name+".json"))
	if err != nil {
		t.Fatalf("schema of %s: %v", name, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", what, err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s does not match docs/schema/%s.json: %v\n%s", what, name, err, data)
	}
}

// The Python package's info adds the tiling figures to the CLI's: the schema
// documents them too.
func TestInfoWithTilingSchema(t *testing.T) {
	for _, text := range []string{"bf16[256,1024]{1,0:T(8,128)(2,1)}", "f32[3,5]", "s4[3,7]{0,1:T(2,8)L(64)}", "f32[]"} {
		b, err := report.JSON(report.NewInfo(compile(t, text)).AddTiling(tpu.NoGeneration).AddInsight(tpu.V5e))
		if err != nil {
			t.Fatal(err)
		}
		checkSchema(t, "info", text+" with tiling", b)
	}
}
