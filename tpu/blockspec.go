package tpu

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tpulayout/tpulayout/layout"
)

// BlockCheck is the verdict on a Pallas TPU block shape for an array: whether Pallas's
// lowering accepts it, how it sits against the dtype's native tile, its VMEM cost
// and its grid. See [CheckBlock].
type BlockCheck struct {
	DType layout.DType `json:"-"`
	Array []int64      `json:"array"`
	Block []int64      `json:"block"`
	// Legal reports whether the Pallas TPU lowering accepts the block; Problems says
	// why not, one rule per entry.
	Legal    bool     `json:"legal"`
	Problems []string `json:"problems,omitempty"`
	// NativeTile is the dtype's native vreg tiling (8·p, 128), p = 32/b (spec §2).
	// NativeAligned reports whether the last two block dims are multiples of it (or
	// the full dims): legal blocks that are not fill vregs partly.
	NativeTile    [2]int64 `json:"native_tile"`
	NativeAligned bool     `json:"native_aligned"`
	// BlockLayout is one block as a VMEM buffer with the generation's default tiling,
	// BlockBytes its size, padding included.
	BlockLayout layout.Shape `json:"-"`
	BlockBytes  int64        `json:"block_bytes"`
	// Grid is the number of blocks along each dim, ceil(array/block); Steps their
	// product. Partial lists the dims whose last block is only partly inside the array.
	Grid    []int64 `json:"grid"`
	Steps   int64   `json:"steps"`
	Partial []int   `json:"partial_dims,omitempty"`
	// VMEMBytes is one TensorCore's VMEM on the generation.
	VMEMBytes  int64  `json:"vmem_bytes"`
	Generation string `json:"generation"`
	// Nearest are legal block shapes close to Block when it is illegal, or
	// native-aligned ones when it is legal but not aligned; closest first.
	Nearest [][]int64 `json:"nearest,omitempty"`
}

// Pipelined is the VMEM that double-buffered pipelining of operands operands with
// this block takes: two buffers each.
func (c BlockCheck) Pipelined(operands int) int64 { return 2 * int64(operands) * c.BlockBytes }

// pallasBits is the bit width the Pallas block rule uses: bool counts as 32 bits, as
// Mosaic stores it (PL).
func pallasBits(dt layout.DType) (int, error) {
	if dt == layout.Pred {
		return 32, nil
	}
	return elementBits(dt)
}

// CheckBlock checks a block shape for an array of type dt on generation g against the
// Pallas TPU block rules of the project's TPU model (spec §3.7; jax
// jax/_src/pallas/mosaic/lowering.py _check_block_mappings, "PL"):
//
//	rank ≥ 2: block[-1] % 128 == 0 or block[-1] == array[-1], and
//	          block[-2] % 8 == 0 or block[-2] == array[-2]
//	rank 1:   block == array, or a multiple of 8·128, or a power of two ≥ 128·p
//	rank 0:   not supported (blocks have rank ≥ 1)
//
// Bad arguments (rank mismatch, dims ≤ 0, a block larger than the array, a dtype with
// no TPU layout) are errors; a block the rules reject is a BlockCheck with Legal false.
func CheckBlock(g Generation, dt layout.DType, array, block []int64) (BlockCheck, error) {
	chip, err := ChipOf(g)
	if err != nil {
		return BlockCheck{}, err
	}
	b, err := pallasBits(dt)
	if err != nil {
		return BlockCheck{}, err
	}
	n := len(array)
	if n == 0 {
		return BlockCheck{}, fmt.Errorf("tpu: a Pallas TPU block needs rank ≥ 1; the array is a scalar")
	}
	if len(block) != n {
		return BlockCheck{}, fmt.Errorf("tpu: the block has %d dims, the array %d", len(block), n)
	}
	for i := range n {
		switch {
		case array[i] <= 0:
			return BlockCheck{}, fmt.Errorf("tpu: array dim %d is %d", i, array[i])
		case block[i] <= 0:
			return BlockCheck{}, fmt.Errorf("tpu: block dim %d is %d", i, block[i])
		case block[i] > array[i]:
			return BlockCheck{}, fmt.Errorf("tpu: block dim %d is %d, larger than the array's %d", i, block[i], array[i])
		}
	}
	p := int64(32 / b)
	L := int64(chip.Target.Lanes)
	S := int64(chip.Target.Sublanes)
	c := BlockCheck{DType: dt, Array: slices.Clone(array), Block: slices.Clone(block),
		NativeTile: [2]int64{S * p, L}, VMEMBytes: chip.VMEMBytes, Generation: chip.Generation.String()}
	c.Problems = blockProblems(array, block, p)
	c.Legal = len(c.Problems) == 0
	c.NativeAligned = aligned(array, block, c.NativeTile)
	c.Steps = 1
	for i := range n {
		c.Grid = append(c.Grid, layout.CeilDiv(array[i], block[i]))
		c.Steps *= c.Grid[i]
		if array[i]%block[i] != 0 {
			c.Partial = append(c.Partial, i)
		}
	}
	if c.BlockLayout, err = DefaultShape(chip.Generation, dt, block); err != nil {
		return BlockCheck{}, err
	}
	ix, err := layout.Compile(c.BlockLayout)
	if err != nil {
		return BlockCheck{}, err
	}
	c.BlockBytes = ix.FootprintBytes()
	switch {
	case !c.Legal:
		c.Nearest = nearestBlocks(array, block, func(bl []int64) bool { return len(blockProblems(array, bl, p)) == 0 }, p)
	case !c.NativeAligned:
		c.Nearest = nearestBlocks(array, block, func(bl []int64) bool { return aligned(array, bl, c.NativeTile) }, p)
	}
	return c, nil
}

// blockProblems lists the Pallas rules the block breaks.
func blockProblems(array, block []int64, p int64) []string {
	n := len(array)
	var out []string
	if n == 1 {
		bs, as := block[0], array[0]
		pow2 := bs&(bs-1) == 0
		if bs != as && bs%(8*128) != 0 && !(pow2 && bs >= 128*p) {
			out = append(out, fmt.Sprintf("a rank-1 block must equal the array (%d), be a multiple of 1024, or be a power of two ≥ %d (128·%d); %d is none",
				as, 128*p, p, bs))
		}
		return out
	}
	if bs, as := block[n-1], array[n-1]; bs != as && bs%128 != 0 {
		out = append(out, fmt.Sprintf("the last block dim must be a multiple of 128 or the array's %d; %d is neither", as, bs))
	}
	if bs, as := block[n-2], array[n-2]; bs != as && bs%8 != 0 {
		out = append(out, fmt.Sprintf("the second-to-last block dim must be a multiple of 8 or the array's %d; %d is neither", as, bs))
	}
	return out
}

// aligned reports whether the last two block dims are multiples of tile (or full).
func aligned(array, block []int64, tile [2]int64) bool {
	n := len(array)
	if n == 1 {
		return block[0] == array[0] || block[0]%(tile[0]*tile[1]) == 0
	}
	ok := func(d int, t int64) bool { return block[d] == array[d] || block[d]%t == 0 }
	return ok(n-1, tile[1]) && ok(n-2, tile[0])
}

// nearestBlocks returns up to three blocks that pass ok, changing only the last two
// dims (the last for rank 1), closest to block first (by the sum of |log ratio|).
func nearestBlocks(array, block []int64, ok func([]int64) bool, p int64) [][]int64 {
	n := len(array)
	first := max(n-2, 0)
	// Candidates per dim: multiples of the tile sizes around the value,
	// powers of two around it, and the full dim.
	cands := make([][]int64, n)
	for d := range n {
		if d < first {
			cands[d] = []int64{block[d]}
			continue
		}
		set := map[int64]bool{array[d]: true}
		for _, step := range []int64{8, 16, 32, 64, 128, 256, 512, 1024, 8 * p, 128 * p, 1024 * p} {
			lo := block[d] / step * step
			for _, v := range []int64{lo, lo + step} {
				if v >= 1 && v <= array[d] {
					set[v] = true
				}
			}
		}
		for v := int64(1); v <= array[d] && v > 0; v *= 2 {
			if v*4 >= block[d] && v <= block[d]*4 {
				set[v] = true
			}
		}
		for v := range set {
			cands[d] = append(cands[d], v)
		}
		slices.Sort(cands[d])
	}
	type scored struct {
		bl   []int64
		cost float64
	}
	var all []scored
	cur := slices.Clone(block)
	var walk func(d int)
	walk = func(d int) {
		if d == n {
			if ok(cur) && !slices.Equal(cur, block) {
				cost := 0.0
				for i := first; i < n; i++ {
					cost += math.Abs(math.Log(float64(cur[i]) / float64(block[i])))
				}
				all = append(all, scored{slices.Clone(cur), cost})
			}
			return
		}
		for _, v := range cands[d] {
			cur[d] = v
			walk(d + 1)
		}
		cur[d] = block[d]
	}
	walk(0)
	slices.SortStableFunc(all, func(x, y scored) int {
		if c := cmp.Compare(x.cost, y.cost); c != 0 {
			return c
		}
		return slices.Compare(y.bl, x.bl) // ties: the larger block
	})
	var out [][]int64
	for _, s := range all[:min(3, len(all))] {
		out = append(out, s.bl)
	}
	return out
}
