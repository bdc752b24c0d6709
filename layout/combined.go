package layout

import "slices"

// Uncombined rewrites a layout whose one tile combines dims (`*`) as the same layout
// without them, when that is exact: a `*` merges a physical dim into the next more minor
// one, and the merged group's tile extent t must split over the group's dims, from the
// most minor: a dim that divides what is left takes all of itself, one that what is left
// divides takes that much (and the dims above it take 1), and the most major takes the
// rest. bf16[4,64,512]{2,1,0:T(2,*,128)} is T(2,1,128); with 64 in place of 512 it is
// T(2,2,64). The rewritten layout has the same offsets and footprint. ok is false, and s
// is returned as it is, for layouts without `*`, with further tiles (which would see the
// extra dims), and with groups that do not split.
func Uncombined(s Shape) (u Shape, ok bool) {
	l := s.Layout
	if len(l.Tiles) != 1 || !slices.Contains(l.Tiles[0], Combined) {
		return s, false
	}
	t, rank := l.Tiles[0], len(s.Dims)
	if len(t) > rank || len(l.MinorToMajor) != rank {
		return s, false
	}
	off := rank - len(t)
	phys := func(k int) int64 { return s.Dims[l.MinorToMajor[rank-1-(off+k)]] }
	out := make(Tile, len(t))
	for k := len(t) - 1; k >= 0; {
		if t[k] == Combined {
			return s, false // nothing more minor to merge into
		}
		i := k // the group: the stars before entry k, and k
		for i > 0 && t[i-1] == Combined {
			i--
		}
		rem := t[k]
		for j := k; j >= i; j-- {
			switch d := phys(j); {
			case j == i:
				out[j] = rem
			case d == 0:
				return s, false
			case rem%d == 0:
				out[j], rem = d, rem/d
			case d%rem == 0:
				out[j], rem = rem, 1
			default:
				return s, false
			}
		}
		k = i - 1
	}
	u = s
	u.Layout.Tiles = []Tile{out}
	return u, true
}
