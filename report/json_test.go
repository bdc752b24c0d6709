package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// TestJSON: arrays of numbers and strings print on one line, arrays holding objects or
// arrays stay indented, strings pass through whole whatever brackets and escapes they
// hold, and the result decodes to the same value.
func TestJSON(t *testing.T) {
	type inner struct {
		Dims []int64 `json:"dims"`
	}
	for _, c := range []struct {
		v    any
		want []string // lines of the output, in order
	}{
		{map[string]any{"dims": []int{3, 5}}, []string{`  "dims": [3,5]`}},
		{map[string]any{"names": []string{"a [b]", `q"[1, 2]"`, `back\`}}, []string{`  "names": ["a [b]","q\"[1, 2]\"","back\\"]`}},
		{map[string]any{"rows": [][]int{{1, 2}, {3}}}, []string{`  "rows": [`, `    [1,2],`, `    [3]`, `  ]`}},
		{map[string]any{"shards": []inner{{[]int64{0, 4}}}}, []string{`  "shards": [`, `    {`, `      "dims": [0,4]`, `    }`}},
		{map[string]any{"empty": []int{}, "text": "[ not an array ]"}, []string{`  "empty": [],`, `  "text": "[ not an array ]"`}},
		{[]int{1}, []string{`[1]`}},
	} {
		b, err := report.JSON(c.v)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		if !strings.HasSuffix(got, "\n") {
			t.Errorf("%v: no final newline in %q", c.v, got)
		}
		rest := got
		for _, line := range c.want {
			i := strings.Index(rest, line+"\n")
			if i < 0 {
				t.Errorf("%v: line %q not found in order in\n%s", c.v, line, got)
				break
			}
			rest = rest[i+len(line):]
		}
		var back, orig any
		ob, _ := json.Marshal(c.v)
		json.Unmarshal(ob, &orig)
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, orig) {
			t.Errorf("%v: %s decodes to %v (%v)", c.v, got, back, err)
		}
	}
	if _, err := report.JSON(map[string]any{"f": func() {}}); err == nil {
		t.Error("a func marshalled")
	}
}

func ExampleJSON() {
	b, _ := report.JSON(struct {
		Shape  string  `json:"shape"`
		Dims   []int64 `json:"dims"`
		Shards []struct {
			Index []int `json:"index"`
		} `json:"shards"`
	}{"f32[8,4]", []int64{8, 4}, []struct {
		Index []int `json:"index"`
	}{{[]int{0, 0}}, {[]int{1, 0}}}})
	fmt.Print(string(b))
	// Output:
	// {
	//   "shape": "f32[8,4]",
	//   "dims": [8,4],
	//   "shards": [
	//     {
	//       "index": [0,0]
	//     },
	//     {
	//       "index": [1,0]
	//     }
	//   ]
	// }
}

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
		b, err := report.JSON(report.NewInfo(testfiles.Compile(t, text)).AddTiling(tpu.NoGeneration).AddInsight(tpu.V5e))
		if err != nil {
			t.Fatal(err)
		}
		checkSchema(t, "info", text+" with tiling", b)
	}
}
