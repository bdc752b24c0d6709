package report

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// Block is `tpulayout blockspec --json`: the check of a Pallas TPU block shape, with
// the VMEM that double-buffered pipelining takes for 1 to N operands of that block.
type Block struct {
	tpu.BlockCheck
	DType       string     `json:"dtype"`
	BlockLayout string     `json:"block_layout"`
	Pipelined   []Pipeline `json:"double_buffered"`
}

// Pipeline is the VMEM of n double-buffered operands of a block.
type Pipeline struct {
	Operands int     `json:"operands"`
	Bytes    int64   `json:"bytes"`
	Fraction float64 `json:"vmem_fraction"`
	Fits     bool    `json:"fits"`
}

// NewBlock reports on the block check c, listing pipelined VMEM for 1 to operands
// operands.
func NewBlock(c tpu.BlockCheck, operands int) *Block {
	r := &Block{BlockCheck: c, DType: c.DType.String(), BlockLayout: c.BlockLayout.String(), Pipelined: []Pipeline{}}
	for n := 1; n <= operands; n++ {
		b := c.Pipelined(n)
		r.Pipelined = append(r.Pipelined, Pipeline{n, b, float64(b) / float64(c.VMEMBytes), b <= c.VMEMBytes})
	}
	return r
}

// MaxOperands is the most operands a [Block] report lists.
const MaxOperands = 64

// CheckBlock checks block for the array sh on generation g (see [PallasLayout] and
// [tpu.CheckBlock]) and reports on it with 1 to operands operands. An illegal block
// is not an error: the report says why (Legal false, Problems).
func CheckBlock(g tpu.Generation, sh layout.Shape, block []int64, operands int) (*Block, error) {
	if operands < 1 || operands > MaxOperands {
		return nil, fmt.Errorf("report: operands must be 1 to %d, not %d", MaxOperands, operands)
	}
	if sh.Kind != layout.Array {
		return nil, fmt.Errorf("report: %s is not an array shape", sh)
	}
	if err := PallasLayout(g, sh); err != nil {
		return nil, err
	}
	c, err := tpu.CheckBlock(g, sh.DType, sh.Dims, block)
	if err != nil {
		return nil, err
	}
	return NewBlock(c, operands), nil
}

// PallasLayout rejects a layout that Pallas TPU operands cannot have: its lowering
// takes arrays in the default layout, which the block rules and the VMEM figures
// assume, so another one (transposed, other tiles) would be silently ignored.
func PallasLayout(g tpu.Generation, sh layout.Shape) error {
	l := sh.Layout
	rowMajor := true
	for i, d := range l.MinorToMajor {
		rowMajor = rowMajor && d == len(l.MinorToMajor)-1-i
	}
	plain := layout.NewShape(sh.DType, sh.Dims...)
	if rowMajor && l.Equal(layout.Layout{MinorToMajor: l.MinorToMajor}) {
		return nil // no layout, or row-major untiled: the logical array Pallas sees
	}
	ds, err := tpu.DefaultShape(g, sh.DType, sh.Dims)
	if err == nil && l.Equal(ds.Layout) {
		return nil
	}
	want := plain.Layout.String()
	if err == nil {
		want += " or " + g.String() + "'s default " + ds.Layout.String()
	}
	return fmt.Errorf("report: layout %s is not one a Pallas TPU operand has; give no layout, %s", l, want)
}
