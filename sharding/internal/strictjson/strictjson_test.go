package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type inner struct {
		A int `json:"a"`
	}
	type doc struct {
		X []inner `json:"x"`
		Y string  `json:"y"`
	}
	for _, c := range []struct {
		text, want, key string
	}{
		{`{"x":[{"a":1}],"y":"s"}`, "", ""},
		{`{"x":[{"a":1},{"a":2,"a":3}]}`, `key "x[1].a" is given twice`, "x[1].a"},
		{`{"y":"s","z":1}`, `unknown key "z"`, "z"},
		{`{"y":1}`, `key "y" holds a JSON number, want string`, "y"},
		{`{"y":"s"} 1`, "more data after the JSON value", ""},
		{`{"y":"a\"b","y":"c"}`, `key "y" is given twice`, "y"},
		{`{"y":"\u0079","\u0079":"c"}`, `key "y" is given twice`, "y"},
		{strings.Repeat("[", 101), "nested more than 100 deep", ""},
		{`{"y":`, "unexpected EOF", ""},
		{`{"y":"`, "unexpected EOF", ""},
	} {
		var d doc
		err := Decode([]byte(c.text), &d)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		case c.key != "":
			var e *Error
			if !errors.As(err, &e) || e.Key != c.key {
				t.Errorf("%s: %#v, want key %q", c.text, err, c.key)
			}
		}
	}
	var ute *json.UnmarshalTypeError
	if err := Decode([]byte(`{"y":1}`), &doc{}); !errors.As(err, &ute) {
		t.Errorf("a type error does not unwrap to encoding/json's: %v", err)
	}
}
