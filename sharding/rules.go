package sharding

import (
	"encoding/json"
	"fmt"
	"os"
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Rules []struct {
			Match string `json:"match"`
			Spec  string `json:"spec"`
		} `json:"rules"`
		Default *string `json:"default"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("sharding: rules file %s is not valid JSON: %w", path, err)
	}
	r := &Rules{}
	for i, e := range f.Rules {
		re, err := regexp.Compile(e.Match)
		if err != nil {
			return nil, fmt.Errorf("sharding: rules file %s: rule %d: bad regular expression %q: %w", path, i+1, e.Match, err)
		}
		s, err := ParseSpec(e.Spec)
		if err != nil {
			return nil, fmt.Errorf("sharding: rules file %s: rule %d: %w", path, i+1, err)
		}
		r.Rules = append(r.Rules, Rule{re, s})
	}
	if f.Default != nil {
		s, err := ParseSpec(*f.Default)
		if err != nil {
			return nil, fmt.Errorf("sharding: rules file %s: default: %w", path, err)
		}
		r.Default = s
	}
	if len(r.Rules) == 0 && r.Default == nil {
		return nil, fmt.Errorf("sharding: rules file %s has no rules and no default", path)
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
