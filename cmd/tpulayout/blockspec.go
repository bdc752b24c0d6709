package main

import (
	"flag"
	"fmt"
	"github.com/tpulayout/tpulayout/internal/edgetext"
	"io"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

var blockspecVerb = &verb{
	name:     "blockspec",
	synopsis: "--array SHAPE --block B0,B1,... [flags]",
	summary:  "check a Pallas TPU block shape: legality, VMEM per block and pipelined, grid",
	detail: `Blockspec checks a Pallas/Mosaic block shape for an array against the TPU rules of
tpulayout's TPU model: the last two block dims must be multiples of 8 and 128 or equal
the array's dims; a rank-1 block must equal the array, be a multiple of 1024, or be a
power of two of at least 128·p (p = 32/bits; bool counts as 32 bits). It also says
whether the block is aligned to the dtype's native tile (8·p, 128), since a legal but
unaligned block fills vregs partly.

It prints the VMEM bytes of one block (as a VMEM buffer with the generation's default
tiling, padding included), the VMEM that double-buffered pipelining takes for 1 to
--operands operands of that block (two buffers each) against the generation's VMEM
per TensorCore, and the grid (blocks per dim, ceil(array/block)), naming the dims whose
last block is partial. When the block is illegal (or legal but unaligned) it lists the
nearest legal (or aligned) block shapes. An illegal block exits with status 1.

SHAPE is the array's dtype and dims, such as 'bf16[4096,4096]'; it may also be a
pasted HLO instruction or hlo:MODULE.txt:param=N. Pallas TPU operands have the default
layout, so a layout in SHAPE must be row-major ({1,0} for rank 2) or the generation's
default device layout; any other is an error.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		array := fs.String("array", "", "the array's `SHAPE`, such as 'bf16[4096,4096]'")
		block := fs.String("block", "", "the block shape `B0,B1,...`")
		gen := fs.String("gen", "", "the TPU `GEN`eration (default v5e)")
		operands := fs.Int("operands", 3, "list double-buffered VMEM for 1 to `N` operands")
		asJSON := fs.Bool("json", false, "print JSON")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos); err != nil {
				return err
			}
			if *array == "" || *block == "" {
				return usagef("give the array and the block: --array 'bf16[4096,4096]' --block 256,512")
			}
			if *operands < 1 || *operands > report.MaxOperands {
				return usagef("--operands must be 1 to %d, not %d", report.MaxOperands, *operands)
			}
			g := tpu.DefaultGeneration
			if *gen != "" {
				var err error
				if g, err = tpu.ParseGeneration(*gen); err != nil {
					return usagef("bad --gen %q: %s", *gen, edgetext.Clean(err))
				}
			}
			sh, err := convert.ParseShape(*array)
			if err != nil {
				return fmt.Errorf("bad --array %q: %s", *array, edgetext.Clean(err))
			}
			if err := report.PallasLayout(g, sh); err != nil {
				return usagef("--array %s: %s", *array, edgetext.Clean(err))
			}
			bl, err := parseBlock(*block)
			if err != nil {
				return err
			}
			c, err := tpu.CheckBlock(g, sh.DType, sh.Dims, bl)
			if err != nil {
				return usagef("--array %s --block %s: %s", *array, *block, strings.TrimPrefix(err.Error(), "tpu: "))
			}
			rep := report.NewBlock(c, *operands)
			if *asJSON {
				err = writeJSON(w, rep)
			} else {
				err = rep.WriteText(w)
			}
			if err == nil && !c.Legal {
				err = &mismatch{fmt.Errorf("block %s is not legal for %s: %s", report.DimsText(bl), *array, strings.Join(c.Problems, "; "))}
			}
			return err
		}
	},
}

// parseBlock reads "256,512" or "(256, 512)".
func parseBlock(text string) ([]int64, error) {
	s := strings.Trim(strings.TrimSpace(text), "()[]")
	var out []int64
	for part := range strings.SplitSeq(s, ",") {
		p := strings.TrimSpace(part)
		if p == "" && len(out) > 0 && strings.HasSuffix(strings.TrimSpace(s), ",") {
			break // Python's (256,) for rank 1
		}
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v <= 0 {
			return nil, usagef("bad --block %q: %q is not a positive number", text, p)
		}
		out = append(out, v)
	}
	return out, nil
}
