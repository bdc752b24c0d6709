package main

import (
	"encoding/json"
	"fmt"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/validate"
)

// validateOptions is the JSON the Python validate() passes.
type validateOptions struct {
	validate.Tolerance        // ulp, abs, rel
	CheckPadding       bool   `json:"check_padding"`
	Gen                string `json:"gen"`
	MaxListed          int    `json:"max_listed"`
}

// compareBytes validates dump (the bytes of dumpShape) against ref (the bytes of
// refShape) and returns {"report": validate --json's object, "text": the human report,
// "summary": its one-line summary}.
func compareBytes(dump []byte, dumpShape string, ref []byte, refShape, optsJSON string) ([]byte, error) {
	var o validateOptions
	if optsJSON != "" {
		if err := json.Unmarshal([]byte(optsJSON), &o); err != nil {
			return nil, fmt.Errorf("tpulayout: validate options: %s", plainJSONError(err))
		}
	}
	dix, err := parseArray(dumpShape)
	if err != nil {
		return nil, err
	}
	rix, err := parseArray(refShape)
	if err != nil {
		return nil, err
	}
	db, err := buffer.Wrap(dix.Shape(), dump)
	if err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	rb, err := buffer.Wrap(rix.Shape(), ref)
	if err != nil {
		return nil, fmt.Errorf("ref: %w", err)
	}
	r, err := validate.Compare(db, rb, validate.Options{
		Tolerance:    o.Tolerance,
		CheckPadding: o.CheckPadding,
		Gen:          o.Gen,
		MaxListed:    o.MaxListed,
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Report  *validate.Report `json:"report"`
		Text    string           `json:"text"`
		Summary string           `json:"summary"`
	}{r, r.String(), r.Summary()})
}
