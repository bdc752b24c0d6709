package convert

import (
	"bytes"
	"os"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// An Out that is mostly padding (a tiny array in a huge tile, say bf16[5] with
// T(2147483648)) is not built in memory: held whole it took 4 GiB and 100 s for 10
// bytes of data. Instead the file is filled with the padding (a sparse extent when the
// padding is zero) and each element written at its offset through the layout's index
// math, converted as relayout's per-element path converts it (buffer.ConvertElement).
//
// Limits.SparseMinBytes is the footprint from which this pays (DefaultSparseMinBytes);
// an Out qualifies when at most a quarter of it is data.

// sparseRun is how many bytes of consecutive elements are gathered before a write.
const sparseRun = 1 << 20

// sparseWorth reports whether Out of dst, converted from src without bands, is written
// sparsely: mostly padding, whole-byte elements (no E(n) packing) of at most 64 bits.
func sparseWorth(dst *layout.Indexer, src *buffer.Buffer, b *relayout.Bands, sparseMinBytes int64) bool {
	return b == nil && dst.Shape().Layout.PrefixBytes == 0 && dst.ElementBits()%8 == 0 && dst.ElementBits() <= 64 && src.Indexer().ElementBits() <= 64 &&
		dst.FootprintBytes() >= sparseMinBytes && dst.LogicalBytes() <= dst.FootprintBytes()/4
}

// padFill returns the bytes of one padding element of dst under opts, as relayout
// writes them, by running the same options on a two-slot image of one element.
func padFill(dst, src layout.Shape, opts []relayout.Option) ([]byte, error) {
	one := layout.Shape{DType: dst.DType, Dims: []int64{1},
		Layout: layout.Layout{MinorToMajor: []int{0}, Tiles: []layout.Tile{{2}}, ElementBits: dst.Layout.ElementBits}}
	p, err := relayout.NewPlan(one, layout.Shape{DType: src.DType, Dims: []int64{1}}, opts...)
	if err != nil {
		return nil, err
	}
	out := make([]byte, p.DstBytes())
	in := make([]byte, (src.DType.StorageBits()+7)/8)
	if err := p.CopyBytes(out, in); err != nil {
		return nil, err
	}
	return out[len(out)/2:], nil
}

// writeSparse writes the image of src in dst at base in f, the temporary Out file: the
// padding first, then the elements in runs of consecutive offsets.
func writeSparse(f *os.File, base int64, dst *layout.Indexer, src *buffer.Buffer, fill []byte, prog Progress, wrap func(error) error) error {
	total := dst.FootprintBytes()
	if bytes.Count(fill, []byte{0}) == len(fill) {
		// Zero padding: a hole the file system reads as zeros.
		if err := f.Truncate(base + total); err != nil {
			return wrap(err)
		}
	} else {
		chunk := bytes.Repeat(fill, sparseRun/len(fill))
		for off := int64(0); off < total; off += int64(len(chunk)) {
			n := min(int64(len(chunk)), total-off)
			if _, err := f.WriteAt(chunk[:n], base+off); err != nil {
				return wrap(err)
			}
		}
	}
	eb := int64(dst.ElementBits() / 8)
	dt, st := dst.Shape().DType, src.Shape.DType
	run := make([]byte, 0, sparseRun)
	var runOff int64 = -1 // the element offset where run starts
	flush := func() error {
		if len(run) > 0 {
			if _, err := f.WriteAt(run, base+runOff*eb); err != nil {
				return wrap(err)
			}
		}
		run = run[:0]
		return nil
	}
	var word [8]byte
	srcIx := src.Indexer()
	sbits := srcIx.ElementBits()
	idx := make([]int64, dst.Rank())
	if dst.LogicalElements() > 0 {
		for {
			off := dst.Offset(idx)
			if len(run) == 0 || off != runOff+int64(len(run))/eb || len(run)+int(eb) > sparseRun {
				if err := flush(); err != nil {
					return err
				}
				runOff = off
			}
			// The stored bits as relayout loads them (a pred byte whole, not its low bit).
			v := buffer.LoadBits(src.Data, srcIx.Offset(idx), sbits)
			if dt != st { // as relayout's per-element path: same types keep their bits
				v = buffer.Widen(dt, int(eb*8), buffer.ConvertElement(dt, st, v))
			}
			for i := range eb {
				word[i] = byte(v >> (8 * i))
			}
			run = append(run, word[:eb]...)
			if !layout.NextIndex(idx, dst.Dims()) {
				break
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	prog.Add(total)
	return nil
}
