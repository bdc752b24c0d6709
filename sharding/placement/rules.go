package placement

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/tpulayout/tpulayout/sharding/internal/strictjson"
)

// Rules pick a spec per tensor name: the first rule whose regular expression matches
// anywhere in the name (Go's RE2 syntax; anchor with ^…$ for a whole-name match), else
// the default.
type Rules struct {
	Rules   []Rule
	Default Spec // nil: no default, an unmatched tensor is an error
}

// Rule is one entry of a rules file: the first rule whose Pattern matches gives Spec.
type Rule struct {
	Pattern *regexp.Regexp
	Spec    Spec
}

// ParseRules parses the text of a rules file:
//
//	{"rules": [{"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"}, …],
//	 "default": "P()"}
//
// It is strict: a key it
// does not know, a key given twice, a rule without "match" or "spec" or with an empty
// "match" (which would match every tensor) are errors naming the rule.
func ParseRules(data []byte) (*Rules, error) {
	var f struct {
		Rules   []json.RawMessage `json:"rules"`
		Default *string           `json:"default"`
	}
	if err := strictjson.Decode(data, &f); err != nil {
		return nil, &RulesError{Msg: "not a valid rules file", Err: err}
	}
	r := &Rules{}
	for i, raw := range f.Rules {
		var e struct {
			Match *string `json:"match"`
			Spec  *string `json:"spec"`
		}
		if err := strictjson.Decode(raw, &e); err != nil {
			return nil, &RulesError{Rule: i + 1, Msg: fmt.Sprintf("rule %d", i+1), Err: err, hint: ` (a rule is {"match": REGEX, "spec": SPEC})`}
		}
		switch {
		case e.Match == nil:
			return nil, &RulesError{Rule: i + 1, Msg: fmt.Sprintf(`rule %d has no "match" (a regular expression on the tensor name)`, i+1)}
		case *e.Match == "":
			return nil, &RulesError{Rule: i + 1, Msg: fmt.Sprintf(`rule %d has an empty "match", which would match every tensor; use "default" for that`, i+1)}
		case e.Spec == nil:
			return nil, &RulesError{Rule: i + 1, Msg: fmt.Sprintf(`rule %d (match %q) has no "spec"`, i+1, *e.Match)}
		}
		re, err := regexp.Compile(*e.Match)
		if err != nil {
			return nil, &RulesError{Rule: i + 1, Msg: fmt.Sprintf("rule %d: bad regular expression %q", i+1, *e.Match), Err: err}
		}
		s, err := ParseSpec(*e.Spec)
		if err != nil {
			return nil, &RulesError{Rule: i + 1, Msg: fmt.Sprintf("rule %d (match %q)", i+1, *e.Match), Err: err}
		}
		r.Rules = append(r.Rules, Rule{re, s})
	}
	if f.Default != nil {
		s, err := ParseSpec(*f.Default)
		if err != nil {
			return nil, &RulesError{Msg: "default", Err: err}
		}
		r.Default = s
	}
	if len(r.Rules) == 0 && r.Default == nil {
		return nil, &RulesError{Msg: "no rules and no default"}
	}
	return r, nil
}

// SpecFor returns the spec of the tensor called name and the number of the rule that
// gave it (1-based; 0 for the default).
func (r *Rules) SpecFor(name string) (Spec, int, error) {
	for i, e := range r.Rules {
		if e.Pattern.MatchString(name) {
			return e.Spec, i + 1, nil
		}
	}
	if r.Default != nil {
		return r.Default, 0, nil
	}
	return nil, 0, &UnmatchedError{Tensor: name}
}
