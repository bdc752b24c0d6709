package main

import (
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// infoTarget applies info's --to and --gen: --to tpu:GEN replaces the layout with the
// generation's default for the shape's dtype and dims (and sets the generation).
func infoTarget(ix *layout.Indexer, to, genText string) (*layout.Indexer, tpu.Generation, error) {
	gen := tpu.DefaultGeneration
	if genText != "" {
		g, err := tpu.ParseGeneration(genText)
		if err != nil {
			return nil, 0, usagef("bad --gen %q: %s", genText, convert.CleanErr(err))
		}
		gen = g
	}
	if to == "" {
		return ix, gen, nil
	}
	g, ok := strings.CutPrefix(to, "tpu:")
	if !ok {
		return nil, 0, usagef("info --to takes tpu:GEN (such as tpu:v5e), not %q", to)
	}
	tg, err := tpu.ParseGeneration(g)
	if err != nil {
		return nil, 0, usagef("bad --to %q: %s", to, convert.CleanErr(err))
	}
	if genText != "" && tg != gen {
		return nil, 0, usagef("--to %s and --gen %s disagree", to, genText)
	}
	s := ix.Shape()
	ds, err := tpu.DefaultShape(tg, s.DType, s.Dims)
	if err != nil {
		return nil, 0, fmt.Errorf("no default %s layout for %s: %s", tg, layout.NewShape(s.DType, s.Dims...), convert.CleanErr(err))
	}
	nix, err := layout.Compile(ds)
	if err != nil {
		return nil, 0, fmt.Errorf("default %s layout %s: %s", tg, ds, convert.CleanErr(err))
	}
	return nix, tg, nil
}
