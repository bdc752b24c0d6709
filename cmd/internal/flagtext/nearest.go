package flagtext

import (
	"sort"
	"strings"
)

// Nearest returns the candidate closest to s by edit distance when it is close enough
// to be the likely intent (at most a third of the longer name, at least 1, or s is a
// prefix of it), and "" otherwise. Ties go to the first in sorted order.
func Nearest(s string, candidates []string) string {
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
