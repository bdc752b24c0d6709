package main

import (
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// The one stderr line that says a --to tpu:GEN default is a guess: where XLA's dumps
// conflict or none speaks for the generation (tpu.DefaultEvidence), the program's own
// layout (--to hlo:FILE:param=N) is the reliable one.

// guessOf returns why the default layout dst that --to tpu:GEN gave is a guess, or ""
// when --to is something else or the dumps back the default.
func guessOf(to string, dst layout.Shape) string {
	g, ok := strings.CutPrefix(to, "tpu:")
	if !ok {
		return ""
	}
	gen, err := tpu.ParseGeneration(g)
	if err != nil {
		return ""
	}
	if e := tpu.DefaultEvidence(gen, dst.DType, dst.Dims); e.Guess {
		return e.Why
	}
	return ""
}

// guessTally gathers the guessed defaults of a conversion of many tensors, to report them
// in one line.
type guessTally struct {
	to    string
	n     int    // tensors whose default is a guess
	first string // the first of them, with why
	seen  map[string]bool
}

// add notes tensor name's target dst (each name counts once: a sharded conversion
// resolves every shard).
func (g *guessTally) add(name string, dst layout.Shape) {
	why := guessOf(g.to, dst)
	if why == "" || g.seen[name] {
		return
	}
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	g.seen[name] = true
	if g.n == 0 {
		g.first = fmt.Sprintf("%s %s: %s", name, dst, why)
	}
	g.n++
}

// guessLine is the note for one array whose --to default dst is a guess for why; hint
// is how to take the layout from the program instead.
func guessLine(to string, dst layout.Shape, why, hint string) string {
	return fmt.Sprintf("note: the %s default %s is a guess: %s; the program's own layout is exact: %s", to, dst, why, hint)
}

// line is the note for total tensors, or "" when no default was a guess.
func (g *guessTally) line(total int) string {
	if g.n == 0 {
		return ""
	}
	return fmt.Sprintf("note: the %s defaults of %d of %s are guesses (first %s); the program's own layouts are exact: --to hlo:FILE:param=N",
		g.to, g.n, plural(int64(total), "tensor"), g.first)
}
