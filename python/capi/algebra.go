package main

import (
	"fmt"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/layout/algebra"
	"github.com/tpulayout/tpulayout/report"
)

// algebraReport answers the layout algebra's requests (cute, whereis, equal, copymap,
// blocks, padding) with the report `tpulayout VERB --json` prints; ok is false for
// any other request.
func algebraReport(q *reportRequest) (rep any, ok bool, err error) {
	switch q.Report {
	case "cute", "whereis", "blocks", "padding":
	case "equal", "copymap":
		a, b := q.A, q.B
		if q.Report == "copymap" {
			a, b = q.Src, q.Dst
		}
		ma, err := mapping(a)
		if err != nil {
			return nil, true, err
		}
		mb, err := mapping(b)
		if err != nil {
			return nil, true, err
		}
		if q.Report == "equal" {
			rep, err = report.CompareLayouts(ma, mb)
		} else {
			rep, err = report.NewCopyMap(ma, mb)
		}
		return rep, true, err
	default:
		return nil, false, nil
	}
	m, err := mapping(q.Layout)
	if err != nil {
		return nil, true, err
	}
	switch q.Report {
	case "cute":
		rep, err = report.NewCute(m, q.Words)
	case "whereis":
		switch {
		case (q.Byte == nil) == (q.Element == nil):
			return nil, true, fmt.Errorf("tpulayout: whereis takes one of byte=N and element=N")
		case q.Byte != nil:
			rep, err = report.NewWhereIs(m, *q.Byte, true)
		default:
			rep, err = report.NewWhereIs(m, *q.Element, false)
		}
	case "blocks":
		rep, err = report.NewBlocks(m, q.Block)
	case "padding":
		rep = report.NewPadding(m)
	}
	return rep, true, err
}

// mapping reads a shape argument (any form the CLI takes) as an algebra Mapping; text
// that does not parse is the *layout.ParseError, which Python raises as LayoutError
// with its position.
func mapping(text string) (algebra.Mapping, error) {
	sh, err := convert.ParseShape(text)
	if err != nil {
		return algebra.Mapping{}, err
	}
	ix, err := layout.Compile(sh)
	if err != nil {
		return algebra.Mapping{}, err
	}
	return report.LayoutMapping(ix)
}
