package sharding

import (
	"fmt"

	"github.com/tpulayout/tpulayout/sharding/placement"
)

// ReadRules reads a rules file (at most MaxRulesBytes; see placement.ParseRules).
func ReadRules(path string) (*placement.Rules, error) {
	data, err := readLimited(path, "rules file", MaxRulesBytes)
	if err != nil {
		return nil, err
	}
	r, err := placement.ParseRules(data)
	if err != nil {
		return nil, fmt.Errorf("sharding: rules file %s: %w", path, err)
	}
	return r, nil
}
