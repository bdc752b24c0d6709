package algebra

import (
	"fmt"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// chain is the exact level-by-level form of an array layout (Mapping.Chain).
func chain(s layout.Shape, ix *layout.Indexer) []Level {
	rank := len(s.Dims)
	if rank == 0 {
		return nil
	}
	m2m := s.Layout.MinorToMajor
	if m2m == nil {
		m2m = layout.RowMajor(rank)
	}
	stride := make([]int64, rank)
	st := int64(1)
	for _, d := range m2m {
		stride[d] = st
		st *= s.Dims[d] // ≤ the footprint, which Compile checked
	}
	levels := []Level{{"physical", Layout{Ints(s.Dims...), Ints(stride...)}}}
	tiles := tilesApplied(s)
	lv := ix.Levels()
	cur := append([]int64(nil), lv[len(lv)-len(tiles)-1].Dims...)
	for _, t := range tiles {
		var pad, tile Layout
		var padded bool
		pad, padded, tile, cur = tileLevels(cur, t)
		if padded {
			levels = append(levels, Level{"pad " + tileName(t), pad})
		}
		levels = append(levels, Level{tileName(t), tile})
	}
	return levels
}

// tileLevels returns, for shape cur (major first) and tile t, the padding embedding
// (padded is false when the shape needs none), the tile reorder over the padded shape,
// and the tiled shape.
func tileLevels(cur []int64, t layout.Tile) (pad Layout, isPadded bool, tile Layout, next []int64) {
	for len(cur) < len(t) {
		cur = append([]int64{1}, cur...)
	}
	n, k := len(cur), len(t)
	padded := append([]int64(nil), cur...)
	for i := 0; i < k; i++ {
		padded[n-k+i] = ceilDiv(cur[n-k+i], t[i]) * t[i]
	}
	if !slices.Equal(padded, cur) {
		ps := rowMajorStrides(padded)
		pad, isPadded = Layout{Ints(reversed(cur)...), Ints(reversed(ps)...)}, true
	}
	next = append([]int64(nil), padded[:n-k]...)
	for i := 0; i < k; i++ {
		next = append(next, padded[n-k+i]/t[i])
	}
	next = append(next, t...)
	ts := rowMajorStrides(next)
	var modes []Layout
	for q := n - 1; q >= 0; q-- {
		if i := q - (n - k); i >= 0 {
			modes = append(modes, Layout{Ints(t[i], padded[q]/t[i]), Ints(ts[n+i], ts[n-k+i])})
		} else {
			modes = append(modes, Leaf(padded[q], ts[q]))
		}
	}
	return pad, isPadded, concat(modes...), next
}

func rowMajorStrides(dims []int64) []int64 {
	out := make([]int64, len(dims))
	st := int64(1)
	for j := len(dims) - 1; j >= 0; j-- {
		out[j] = st
		st *= dims[j]
	}
	return out
}

func reversed(v []int64) []int64 {
	out := slices.Clone(v)
	slices.Reverse(out)
	return out
}

// term is one logical dim inside a base dim: value weight m, size n.
type term struct {
	dim  int
	m, n int64
}

// sub is one digit of a logical index: floor(e/place) mod radix, times stride.
type sub struct{ place, radix, stride int64 }

// oneLayout applies the digit rule of the design note (§1) to the compiled digits of
// s: each digit of the tiled shape is floor(v/p) mod r of a base value v; it must cut v
// only at places that split each logical dim in v exactly (a ragged cut only in the top
// dim). It returns one mode per logical dim, or nil and the cut that prevents it.
func oneLayout(s layout.Shape, ix *layout.Indexer) ([]Layout, string) {
	groups := baseGroups(s)
	terms := make([][]term, len(groups))
	bsize := make([]int64, len(groups))
	for b, g := range groups {
		m := int64(1)
		for i := len(g) - 1; i >= 0; i-- {
			if n := s.Dims[g[i]]; n > 1 {
				terms[b] = append(terms[b], term{g[i], m, n})
			}
			m *= s.Dims[g[i]]
		}
		bsize[b] = m
	}
	subs := make([][]sub, len(s.Dims))
	for _, d := range ix.Digits() {
		if d.Base < 0 || len(terms[d.Base]) == 0 {
			continue
		}
		p, r, zero, reason := normalize(d.Ops, bsize[d.Base])
		if reason != "" {
			return nil, reason
		}
		if zero {
			continue
		}
		ts := terms[d.Base]
		if msg := checkCut(ts, p); msg != "" {
			return nil, msg
		}
		if r != 0 {
			if msg := checkCut(ts, p*r); msg != "" {
				return nil, msg
			}
		}
		for j, t := range ts {
			if sb, ok := split(t, j == len(ts)-1, p, r, d.Stride); ok {
				subs[t.dim] = append(subs[t.dim], sb)
			}
		}
	}
	modes := make([]Layout, len(s.Dims))
	for k, ss := range subs {
		slices.SortFunc(ss, func(a, b sub) int { return int(min(max(a.place-b.place, -1), 1)) })
		var sh, st []int64
		place := int64(1)
		for _, sb := range ss {
			if sb.place != place {
				return nil, fmt.Sprintf("the digits of dim %d do not split it exactly (place %d where %d was due)", k, sb.place, place)
			}
			sh, st = append(sh, sb.radix), append(st, sb.stride)
			place *= sb.radix
		}
		modes[k] = fromFlat(sh, st)
	}
	return modes, ""
}

// normalize reduces a digit's ops to floor(v/p) mod r for 0 ≤ v < size (r = 0: no
// mod). zero is true when the digit is always 0; reason is set when a mod or div cuts
// the digit inexactly.
func normalize(ops []layout.Op, size int64) (p, r int64, zero bool, reason string) {
	p = 1
	for _, o := range ops {
		if r != 0 && r >= ceilDiv(size, p) {
			r = 0 // v/p < r already
		}
		switch {
		case o.Div > 0 && r == 0:
			var ok bool
			if p, ok = mul(p, o.Div); !ok || p >= size {
				return 0, 0, true, ""
			}
		case o.Div > 0 && r%o.Div == 0:
			p, r = p*o.Div, r/o.Div
		case o.Div > 0 && r <= o.Div:
			return 0, 0, true, ""
		case o.Div > 0:
			return 0, 0, false, fmt.Sprintf("tile %d does not divide radix %d", o.Div, r)
		case r == 0 || r%o.Mod == 0:
			r = o.Mod
		case r <= o.Mod:
		default:
			return 0, 0, false, fmt.Sprintf("tile %d does not divide radix %d", o.Mod, r)
		}
	}
	if r != 0 && r >= ceilDiv(size, p) {
		r = 0
	}
	return p, r, false, ""
}

// checkCut returns why place c (1 ≤ c < the base size) does not split the terms exactly.
func checkCut(ts []term, c int64) string {
	for j, t := range ts {
		top := j == len(ts)-1
		if c < t.m || (!top && c >= t.m*t.n) {
			continue
		}
		if c%t.m != 0 || (!top && t.n%(c/t.m) != 0) {
			return fmt.Sprintf("a tile cuts the '*'-merged dim %d (size %d) at %d elements of it", t.dim, t.n, max(c/t.m, 1))
		}
	}
	return ""
}

// split is the part of digit floor(v/p) mod r (r = 0: none) that falls on term t, with
// the digit's stride scaled to the term's place inside the digit.
func split(t term, top bool, p, r, stride int64) (sub, bool) {
	lo := max(p, t.m)
	hi := int64(-1) // unbounded
	if r != 0 {
		hi = p * r
	}
	if !top && (hi < 0 || hi > t.m*t.n) {
		hi = t.m * t.n
	}
	if hi >= 0 && lo >= hi {
		return sub{}, false
	}
	a := lo / t.m
	radix := ceilDiv(t.n, a)
	if hi >= 0 {
		radix = min(radix, hi/lo)
	}
	if radix <= 1 {
		return sub{}, false
	}
	return sub{a, radix, stride * (lo / p)}, true
}
