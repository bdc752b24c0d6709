package tpu

import (
	"encoding/binary"
	"fmt"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// Vreg is the content of one vector register: Words[s·Lanes + l] is the 32-bit word at
// sublane s, lane l. Index is the vreg's place in the vreg array.
type Vreg struct {
	Index []int64  `json:"index"`
	Words []uint32 `json:"words"`
}

// Element is one logical element unpacked from a vreg: its index and raw bits.
type Element struct {
	Index []int64 `json:"index"`
	Bits  uint64  `json:"bits"`
}

// LoadLayout checks that memory shape s loads straight into vregs of target t (zero:
// 8 × 128) and returns the vreg layout the load produces; see [NewMemTiling] and
// [MemTiling.LoadLayout]. The error is a [*RuleError] naming the broken rule.
func LoadLayout(t Target, s layout.Shape) (VregLayout, error) {
	m, err := NewMemTiling(t, s)
	if err != nil {
		return VregLayout{}, err
	}
	return m.LoadLayout(), nil
}

// Load returns every vreg of layout vl filled from image, in row-major order of the vreg
// array. The image's layout must be loadable ([NewMemTiling], on vl's target). With vl
// the image's [LoadLayout] every vreg is a run of consecutive memory tiles; with another
// layout (such as the native one) each vreg gathers the elements its cells stand for.
// Cells outside the tiled memory array read as zero; cells on memory padding read the
// padding.
func Load(image *buffer.Buffer, vl VregLayout) ([]Vreg, error) {
	m, err := NewMemTiling(vl.Target, image.Shape)
	if err != nil {
		return nil, err
	}
	var out []Vreg
	words := vl.Target.Words()
	err = forEachCell(m, vl, func(c *cell) {
		if c.first() {
			out = append(out, Vreg{Index: append([]int64(nil), c.vreg...), Words: make([]uint32, words)})
		}
		if !c.backed {
			return
		}
		v := readBits(image.Data, c.loc.BitOffset, m.bits)
		out[len(out)-1].Words[c.s*vl.Target.Lanes+c.l] |= uint32(v << (c.k * m.bits))
	})
	return out, err
}

// Unpack returns the logical elements of a value of shape dims that vreg r holds under
// layout vl, in cell order (sublane, lane, slot); padding cells are left out.
func (v VregLayout) Unpack(dims []int64, r Vreg) []Element {
	var out []Element
	p := v.Packing()
	mask := uint32(1)<<v.Bits - 1
	if v.Bits == 32 {
		mask = ^uint32(0)
	}
	for s := 0; s < v.Target.Sublanes; s++ {
		for l := 0; l < v.Target.Lanes; l++ {
			w := r.Words[s*v.Target.Lanes+l]
			for k := 0; k < p; k++ {
				if idx, ok := v.Element(dims, r.Index, s, l, k); ok {
					out = append(out, Element{Index: idx, Bits: uint64(w >> (k * v.Bits) & mask)})
				}
			}
		}
	}
	return out
}

// cell is one (vreg, sublane, lane, slot) visited by forEachCell.
type cell struct {
	vreg    []int64 // index in the vreg array (shared; copy to keep)
	vregNum int64   // row-major number of the vreg
	s, l, k int
	r, c    int64   // row and column of the expanded value, padding included
	lead    []int64 // leading index (shared)
	valid   bool    // the cell holds a logical element
	idx     []int64 // its logical index when valid (shared)
	backed  bool    // (r, c) lies in the tiled memory array
	loc     MemLoc  // where, when backed (Tile not filled)
}

func (c *cell) first() bool { return c.s == 0 && c.l == 0 && c.k == 0 }

// forEachCell visits every cell of every vreg of layout vl over the array of m, in vreg
// order then (sublane, lane, slot) order, and says which element and memory location
// each cell stands for.
func forEachCell(m *MemTiling, vl VregLayout, fn func(*cell)) error {
	if err := vl.Validate(); err != nil {
		return err
	}
	if vl.Bits != m.bits {
		return fmt.Errorf("tpu: vreg layout %s does not match %d-bit %s", vl, m.bits, m.shape.DType)
	}
	if vl.Target.orDefault() != m.target {
		return fmt.Errorf("tpu: vreg layout %s is for another target than the memory's %d×%d", vl, m.target.Sublanes, m.target.Lanes)
	}
	if m.oneD != (vl.Implicit == ImplicitSecondMinor) || !m.oneD && vl.Implicit != ImplicitNone {
		return fmt.Errorf("tpu: vreg layout %s does not fit the rank-%d array %s", vl, len(m.dims), m.shape)
	}
	vshape, err := vl.VregArrayShape(m.dims)
	if err != nil {
		return err
	}
	n := len(vshape)
	var c cell
	c.vreg = make([]int64, n)
	c.lead = c.vreg[:n-2]
	full := make([]int64, n) // expanded logical index
	p := vl.Packing()
	S, L := vl.Target.Sublanes, vl.Target.Lanes
	for _, d := range vshape {
		if d == 0 {
			return nil
		}
	}
	for {
		copy(full, c.vreg[:n-2])
		for s := 0; s < S; s++ {
			for l := 0; l < L; l++ {
				for k := 0; k < p; k++ {
					c.s, c.l, c.k = s, l, k
					r, col := vl.cellCoords(c.vreg[n-2], c.vreg[n-1], s, l, k)
					c.r, c.c = r-vl.Offsets[0], col-vl.Offsets[1]
					c.valid = c.r >= 0 && c.c >= 0 && c.r < m.rows && c.c < m.cols
					if c.valid {
						full[n-2], full[n-1] = c.r, c.c
						if m.oneD {
							c.idx = full[n-1:]
						} else {
							c.idx = full
						}
					} else {
						c.idx = nil
					}
					c.backed = m.backed(c.r, c.c)
					if c.backed {
						c.loc = m.locate(c.lead, c.r, c.c, false)
					}
					fn(&c)
				}
			}
		}
		c.vregNum++
		if !layout.NextIndex(c.vreg, vshape) {
			return nil
		}
	}
}

// readBits reads b bits at bit offset off of data, little-endian, least-significant bits
// first within a byte (spec xla-layout Part 1 §6, §7). Bits past the end read as zero.
func readBits(data []byte, off int64, b int) uint64 {
	i := off >> 3
	switch {
	case b == 32 && i+4 <= int64(len(data)):
		return uint64(binary.LittleEndian.Uint32(data[i:]))
	case b == 16 && i+2 <= int64(len(data)):
		return uint64(binary.LittleEndian.Uint16(data[i:]))
	case b == 8 && i < int64(len(data)):
		return uint64(data[i])
	}
	var v uint64
	for j := 0; j < b; j++ {
		bit := off + int64(j)
		if bit>>3 < int64(len(data)) && data[bit>>3]>>(bit&7)&1 != 0 {
			v |= 1 << j
		}
	}
	return v
}

// writeBits stores the low b bits of v at bit offset off of data (same order as
// readBits); bits past the end are dropped.
func writeBits(data []byte, off int64, b int, v uint64) {
	for j := 0; j < b; j++ {
		bit := off + int64(j)
		if bit>>3 >= int64(len(data)) || bit < 0 {
			continue
		}
		if v>>j&1 != 0 {
			data[bit>>3] |= 1 << (bit & 7)
		} else {
			data[bit>>3] &^= 1 << (bit & 7)
		}
	}
}
