// Package report builds the reports of tpulayout's inspection verbs as typed values:
// the layout description and insight of info ([Info]), where one element lives
// ([Explanation]), the arrays of an HLO module ([HLO]) and the check of a Pallas block
// shape ([Block]). Each marshals to the JSON that `tpulayout VERB --json` prints, with
// snake_case keys described by a JSON schema in the repository's docs/schema; the
// command-line tool prints them as text and the Python package returns them as dicts.
//
// The reports only compute: reading files, parsing flags and printing stay with the
// caller.
package report
