package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// mib prints a byte count with its size in KiB or MiB: "262144 bytes (256 KiB)".
func mib(b int64) string {
	if b < 1<<10 {
		return Plural(b, "byte")
	}
	return fmt.Sprintf("%s (%s)", Plural(b, "byte"), mibShort(b))
}

// WriteText prints the check as the tpulayout command's blockspec does.
func (r *Block) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "array:\t%s%s on %s\n", r.DType, DimsText(r.Array), r.Generation)
	fmt.Fprintf(tw, "block:\t%s\n", DimsText(r.Block))
	if r.Legal {
		fmt.Fprintf(tw, "legal:\tyes\n")
	} else {
		for i, p := range r.Problems {
			label := ""
			if i == 0 {
				label = "legal:"
			}
			fmt.Fprintf(tw, "%s\tno: %s\n", label, p)
		}
	}
	nt := fmt.Sprintf("(%d,%d)", r.NativeTile[0], r.NativeTile[1])
	if len(r.Array) == 1 {
		nt = fmt.Sprintf("%d elements (%d,%d)", r.NativeTile[0]*r.NativeTile[1], r.NativeTile[0], r.NativeTile[1])
	}
	if r.NativeAligned {
		fmt.Fprintf(tw, "native tile:\t%s: aligned\n", nt)
	} else {
		fmt.Fprintf(tw, "native tile:\t%s: not aligned, vregs are partly filled\n", nt)
	}
	fmt.Fprintf(tw, "one block:\t%s as %s\n", mib(r.BlockBytes), r.BlockLayout)
	for i, p := range r.Pipelined {
		label := ""
		if i == 0 {
			label = "double-buffered:"
		}
		fits := "fits"
		if !p.Fits {
			fits = "does not fit"
		}
		fmt.Fprintf(tw, "%s\t%s: %s, %s of %s VMEM: %s\n", label, Plural(int64(p.Operands), "operand"), mib(p.Bytes),
			percent(p.Fraction), mibShort(r.VMEMBytes), fits)
	}
	grid := fmt.Sprintf("%s = %s", fmtIndex(r.Grid), Plural(r.Steps, "step"))
	if len(r.Partial) > 0 {
		var dims []string
		for _, d := range r.Partial {
			last := r.Array[d] - (r.Grid[d]-1)*r.Block[d]
			dims = append(dims, fmt.Sprintf("dim %d's last block holds %d of %d", d, last, r.Block[d]))
		}
		grid += "; " + strings.Join(dims, ", ")
	}
	fmt.Fprintf(tw, "grid:\t%s\n", grid)
	if len(r.Nearest) > 0 {
		what := "nearest legal:"
		if r.Legal {
			what = "nearest aligned:"
		}
		var bs []string
		for _, b := range r.Nearest {
			bs = append(bs, joinInts(b))
		}
		fmt.Fprintf(tw, "%s\t%s\n", what, strings.Join(bs, "  "))
	}
	return tw.Flush()
}

// mibShort prints a size in MiB, or KiB below 1 MiB, with up to two decimals.
func mibShort(b int64) string {
	unit, f := "MiB", float64(b)/(1<<20)
	if b < 1<<20 {
		unit, f = "KiB", float64(b)/(1<<10)
	}
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), ".")
	return s + " " + unit
}
