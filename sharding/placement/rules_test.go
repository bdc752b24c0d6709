package placement

import (
	"strings"
	"testing"
)

// TestRulesStrict: what encoding/json alone lets through is an error naming the rule
// or the key (a rule keyed "pattern" once matched every tensor, and a second
// "default" silently won).
func TestRulesStrict(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{"rules":[{"pattern":"w$","spec":"P(\"data\")"}],"default":"P()"}`, `rule 1: unknown key "pattern"`},
		{`{"rules":[{"spec":"P(\"data\")"}],"default":"P()"}`, `rule 1 has no "match"`},
		{`{"rules":[{"match":"","spec":"P(\"data\")"}]}`, `rule 1 has an empty "match"`},
		{`{"rules":[{"match":"w$"}]}`, `rule 1 (match "w$") has no "spec"`},
		{`{"rules":[{"match":"w$","spec":"P()","match":"b$"}]}`, `key "rules[0].match" is given twice`},
		{`{"rules":[],"default":"P(\"data\")","default":"P()"}`, `key "default" is given twice`},
		{`{"rules":[],"defualt":"P()"}`, `unknown key "defualt"`},
		{`{"default":"P()"} {}`, `more data after the JSON value`},
		{`{"rules":{"match":"w"}}`, `key "rules"`},
		{`{"rules":[{"match":"(","spec":"P()"}]}`, `rule 1: bad regular expression`},
		{`{}`, `no rules and no default`},
		{strings.Repeat("[", 200), `nested more than 100 deep`},
	} {
		_, err := ParseRules([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseRules(%s): %v, want an error containing %q", c.text, err, c.want)
		}
	}
	r, err := ParseRules([]byte(`{"rules":[{"match":"w$","spec":"P(\"data\")"}],"default":"P()"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, k, _ := r.SpecFor("b"); k != 0 || s.String() != "P()" {
		t.Errorf("b: %s from rule %d, want the default P()", s, k)
	}
	if s, k, _ := r.SpecFor("layer.w"); k != 1 || s.String() != `P("data")` {
		t.Errorf("layer.w: %s from rule %d", s, k)
	}
}

// FuzzRules: any text is parsed or refused with an error, never a panic; what parses
// gives a spec or an error for any name.
func FuzzRules(f *testing.F) {
	f.Add([]byte(`{"rules": [{"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"}], "default": "P()"}`))
	f.Add([]byte(`{"rules":[{"match":"w$","spec":"P(\"data\", (\"a\",\"b\"))"},{"match":"^b","spec":"P()"}]}`))
	f.Add([]byte(`{"default":"P(None)"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRules(data)
		if err != nil {
			return
		}
		if len(r.Rules) == 0 && r.Default == nil {
			t.Fatal("parsed rules with no rule and no default")
		}
		for _, name := range []string{"", "w", "layers.0.attn.wq", "\x00\n"} {
			s, k, err := r.SpecFor(name)
			if err == nil && s == nil {
				t.Fatalf("SpecFor(%q): no spec and no error (rule %d)", name, k)
			}
		}
	})
}
