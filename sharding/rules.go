package sharding

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// Rules pick a spec per tensor name: the first rule whose regular expression matches
// anywhere in the name (Go's RE2 syntax; anchor with ^…$ for a whole-name match), else
// the default.
type Rules struct {
	Rules   []Rule
	Default Spec // nil: no default, an unmatched tensor is an error
}

// Rule is one entry of a rules file.
type Rule struct {
	Pattern *regexp.Regexp
	Spec    Spec
}

// ReadRules reads a rules file:
//
//	{"rules": [{"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"}, …],
//	 "default": "P()"}
func ReadRules(path string) (*Rules, error) {
	data, err := readLimited(path, "rules file", MaxRulesBytes)
	if err != nil {
		return nil, err
	}
	r, err := ParseRules(data)
	if err != nil {
		return nil, fmt.Errorf("sharding: rules file %s: %w", path, err)
	}
	return r, nil
}

// ParseRules parses the text of a rules file (see ReadRules). It is strict: a key it
// does not know, a key given twice, a rule without "match" or "spec" or with an empty
// "match" (which would match every tensor) are errors naming the rule.
func ParseRules(data []byte) (*Rules, error) {
	var f struct {
		Rules   []json.RawMessage `json:"rules"`
		Default *string           `json:"default"`
	}
	if err := decodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("not a valid rules file: %w", err)
	}
	r := &Rules{}
	for i, raw := range f.Rules {
		var e struct {
			Match *string `json:"match"`
			Spec  *string `json:"spec"`
		}
		if err := decodeStrict(raw, &e); err != nil {
			return nil, fmt.Errorf("rule %d: %w (a rule is {\"match\": REGEX, \"spec\": SPEC})", i+1, err)
		}
		switch {
		case e.Match == nil:
			return nil, fmt.Errorf("rule %d has no \"match\" (a regular expression on the tensor name)", i+1)
		case *e.Match == "":
			return nil, fmt.Errorf("rule %d has an empty \"match\", which would match every tensor; use \"default\" for that", i+1)
		case e.Spec == nil:
			return nil, fmt.Errorf("rule %d (match %q) has no \"spec\"", i+1, *e.Match)
		}
		re, err := regexp.Compile(*e.Match)
		if err != nil {
			return nil, fmt.Errorf("rule %d: bad regular expression %q: %w", i+1, *e.Match, err)
		}
		s, err := ParseSpec(*e.Spec)
		if err != nil {
			return nil, fmt.Errorf("rule %d (match %q): %w", i+1, *e.Match, err)
		}
		r.Rules = append(r.Rules, Rule{re, s})
	}
	if f.Default != nil {
		s, err := ParseSpec(*f.Default)
		if err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		r.Default = s
	}
	if len(r.Rules) == 0 && r.Default == nil {
		return nil, fmt.Errorf("no rules and no default")
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
	return nil, 0, fmt.Errorf("sharding: tensor %q matches no rule and the rules have no default", name)
}
