package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Flags are written --name everywhere people read them (help, errors, the README), as
// the prose writes them; the flag package accepts -name and --name alike.

// printFlags lists fs's flags as "  --name VALUE" with the usage on the next lines,
// filled to helpWidth: the layout of flag.PrintDefaults with the prose's two dashes.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if name == "value" { // a flag.Value with no `NAME` in its usage
			name = "VALUE"
		}
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			if g, ok := f.Value.(flag.Getter); ok && isString(g.Get()) {
				usage += fmt.Sprintf(" (default %q)", def)
			} else {
				usage += fmt.Sprintf(" (default %s)", def)
			}
		}
		fmt.Fprintf(w, "%s\n%s\n", line, strings.Join(fill(usage, helpWidth, "    \t", "    \t"), "\n"))
	})
}

// flagError rewrites the flag package's parse errors, which name flags with one dash,
// into the prose's style, and suggests the nearest flag for an unknown one.
func flagError(fs *flag.FlagSet, msg string) error {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if name != "" && name[0] >= '0' && name[0] <= '9' {
			return usagef("%q is not a flag, and coordinates and offsets cannot be negative", "-"+name)
		}
		name = strings.TrimPrefix(name, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := nearest(name, names); near != "" {
			return usagef("unknown flag --%s (did you mean --%s?)", name, near)
		}
		return usagef("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usagef("flag --%s needs an argument", name)
	}
	// "invalid value "x" for flag -n: …", "invalid boolean value "x" for -n: …"
	msg = strings.Replace(msg, " for flag -", " for flag --", 1)
	msg = strings.Replace(msg, " for -", " for --", 1)
	return usagef("%s", msg)
}

// nearest returns the candidate closest to s by edit distance when it is close enough
// to be the likely intent (at most a third of the longer name, at least 1, or s is a
// prefix of it), and "" otherwise. Ties go to the first in sorted order.
func nearest(s string, candidates []string) string {
	cs := append([]string(nil), candidates...)
	sort.Strings(cs)
	best, bestD := "", -1
	for _, c := range cs {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	limit := max(1, max(len(s), len(best))/3)
	if bestD <= limit {
		return best
	}
	for _, c := range cs { // an abbreviation: --cheap for --cheapest
		if len(s) >= 3 && strings.HasPrefix(c, s) {
			return c
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counting a swap of two
// neighbours as one edit (optimal string alignment), since "--ot" means "--to".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func isString(v any) bool { _, ok := v.(string); return ok }
