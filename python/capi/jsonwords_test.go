package main

import (
	"strings"
	"testing"
)

// A request value of the wrong type is named in Python's words: the argument, what it
// wants and what it got, never Go's ("cannot unmarshal … into Go struct field").
func TestRequestErrorsWithoutGoWords(t *testing.T) {
	for _, c := range []struct{ req, want string }{
		{`{"report":"shard","tensor":5}`, "tensor: want a str, got a number"},
		{`{"report":"merge","quick":"yes"}`, "quick: want a bool, got a string"},
		{`{"report":"explain","layout":"f32[3,5]","index":[1.5,2]}`, "index: want an int, got a number 1.5"},
		{`{"report":"shard","process":"1"}`, "process: want an int, got a string"},
		{`{"report":"shard","mesh":"x=2","checkpoint":"c.safetensors","out":"o","spec":"P()","to":"tpu:v5e","devices":{}}`, "devices: want a list of device ids (ints) or their text"},
		{`{"report":`, "report request: not valid JSON"},
	} {
		_, err := buildReport(c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "unmarshal") {
			t.Errorf("%s: %v, want an error saying %q in plain words", c.req, err, c.want)
		}
	}
	if _, err := compareBytes(nil, "f32[2]", nil, "f32[2]", `{"ulp":"x"}`); err == nil || strings.Contains(err.Error(), "Go ") || !strings.Contains(err.Error(), "ulp: want") {
		t.Errorf("validate options of the wrong type: %v", err)
	}
}
