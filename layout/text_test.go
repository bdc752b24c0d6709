package layout

import (
	"encoding/json"
	"testing"
)

// A shape inside JSON is its XLA text, and reads back to an equal shape.
func TestShapeJSON(t *testing.T) {
	for _, text := range []string{
		"bf16[3,5]{1,0:T(8,128)(2,1)}",
		"f32[]",
		"(f32[2]{0}, s8[4,4]{0,1})",
	} {
		v := struct {
			Shape Shape `json:"shape"`
		}{MustParse(text)}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want, _ := json.Marshal(map[string]string{"shape": MustParse(text).String()})
		if string(b) != string(want) {
			t.Errorf("%s: marshalled %s, want %s", text, b, want)
		}
		var back struct {
			Shape Shape `json:"shape"`
		}
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if back.Shape.String() != v.Shape.String() {
			t.Errorf("%s: read back as %s", text, back.Shape)
		}
	}
	var bad struct{ Shape Shape }
	if err := json.Unmarshal([]byte(`{"Shape":"f32[3,"}`), &bad); err == nil {
		t.Errorf("a bad shape in JSON was accepted")
	}
}
