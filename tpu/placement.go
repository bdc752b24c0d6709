package tpu

import "fmt"

// Placement is where one element sits in the vregs of a [VregLayout]: the vreg's
// index in the vreg array (leading dims…, row block, column block), the tile inside the
// vreg, and the cell: sublane, lane, and the slot inside the 32-bit word. Slot k holds
// bits [k·b, (k+1)·b) of the word, slot 0 the low bits (spec §2.1).
type Placement struct {
	Vreg    []int64 `json:"vreg"`
	Tile    int64   `json:"tile"`
	Sublane int     `json:"sublane"`
	Lane    int     `json:"lane"`
	Slot    int     `json:"slot"`
}

// Word is the cell's word number within the vreg, sublane·lanes + lane.
func (p Placement) Word(t Target) int { return p.Sublane*t.orDefault().Lanes + p.Lane }

func (p Placement) String() string {
	return fmt.Sprintf("vreg %v sublane %d lane %d slot %d", p.Vreg, p.Sublane, p.Lane, p.Slot)
}

// Place returns where logical index idx (of the value's own rank, implicit dims not
// included) sits, by the formulas of spec §2.1. For a rectangular tiling (t0 > 1):
//
//	r' = r + o0; c' = c + o1; vreg = (…, r' / vs0, c' / vs1)
//	ri = r' % vs0; ci = c' % vs1; tile j = ci / L
//	sublane = j·sublanes_per_tile + ri / p; lane = ci % L; slot = ri % p
//
// For a single-row tiling (t0 == 1) entry e = c' % vs1 of the slice sits at sublane
// e / (L·p), slot (e % (L·p)) / L, lane e % L: elements c, c+L, … share a word.
//
// The layout must be valid ([VregLayout.Validate]); Place does not check bounds.
func (v VregLayout) Place(idx []int64) Placement {
	e := v.expandIndex(idx)
	n := len(e)
	vs := v.VregSlice()
	r, c := e[n-2]+v.Offsets[0], e[n-1]+v.Offsets[1]
	vreg := append(e[:n-2:n-2], r/vs[0], c/vs[1])
	ri, ci := r%vs[0], c%vs[1]
	p := int64(v.Packing())
	L := int64(v.Target.Lanes)
	if v.singleRow() {
		return Placement{Vreg: vreg, Tile: ci / v.Tiling[1],
			Sublane: int(ci / (L * p)), Lane: int(ci % L), Slot: int(ci % (L * p) / L)}
	}
	j := ci / L
	return Placement{Vreg: vreg, Tile: j,
		Sublane: int(j*v.SublanesPerTile() + ri/p), Lane: int(ci % L), Slot: int(ri % p)}
}

// expandIndex inserts the implicit zero indices; the result is a fresh slice.
func (v VregLayout) expandIndex(idx []int64) []int64 {
	out := append(make([]int64, 0, len(idx)+2), idx...)
	switch v.Implicit {
	case ImplicitMinor:
		out = append(out, 0)
	case ImplicitSecondMinor:
		n := len(out)
		last := out[n-1]
		out = append(out[:n-1], 0, last)
	case ImplicitBoth:
		out = append(out, 0, 0)
	}
	return out
}

// cellCoords is the inverse of Place before offsets and bounds: the (row, column) of the
// expanded value's last two dims that cell (sublane, lane, slot) of vreg (row block vr,
// column block vc) stands for, offsets still included (subtract them for the logical
// index).
func (v VregLayout) cellCoords(vr, vc int64, s, l, k int) (r, c int64) {
	vs := v.VregSlice()
	p := int64(v.Packing())
	L := int64(v.Target.Lanes)
	if v.singleRow() {
		return vr * vs[0], vc*vs[1] + int64(s)*L*p + int64(k)*L + int64(l)
	}
	spt := v.SublanesPerTile()
	j := int64(s) / spt
	ri := int64(s)%spt*p + int64(k)
	return vr*vs[0] + ri, vc*vs[1] + j*L + int64(l)
}

// Element is the inverse of [VregLayout.Place]: the logical index of a value of shape
// dims that cell (sublane, lane, slot) of vreg holds, or false when the cell is padding.
func (v VregLayout) Element(dims, vreg []int64, sublane, lane, slot int) ([]int64, bool) {
	e, err := v.expand(dims)
	if err != nil || len(vreg) != len(e) {
		return nil, false
	}
	n := len(e)
	r, c := v.cellCoords(vreg[n-2], vreg[n-1], sublane, lane, slot)
	r -= v.Offsets[0]
	c -= v.Offsets[1]
	if r < 0 || c < 0 || r >= e[n-2] || c >= e[n-1] {
		return nil, false
	}
	full := append(append([]int64(nil), vreg[:n-2]...), r, c)
	for i := 0; i < n-2; i++ {
		if full[i] < 0 || full[i] >= e[i] {
			return nil, false
		}
	}
	return v.collapseIndex(full), true
}

// collapseIndex drops the implicit dims again.
func (v VregLayout) collapseIndex(e []int64) []int64 {
	n := len(e)
	switch v.Implicit {
	case ImplicitMinor:
		return e[:n-1]
	case ImplicitSecondMinor:
		return append(e[:n-2], e[n-1])
	case ImplicitBoth:
		return e[:n-2]
	}
	return e
}
