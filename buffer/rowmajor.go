package buffer

import (
	"io"

	"github.com/tpulayout/tpulayout/layout"
)

// WriteRowMajor writes the logical elements of b to w in row-major order, one whole
// number of bytes each (pred and sub-byte types one byte each), whatever b's layout:
// the data of a .npy or safetensors file.
func (b *Buffer) WriteRowMajor(w io.Writer) error {
	if b.isDense(false) {
		_, err := w.Write(b.Data)
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	item := (b.vbits + 7) / 8
	if b.bits > 64 {
		item = b.bits / 8
	}
	chunk := make([]byte, 0, 1<<16)
	idx := make([]int64, len(b.dims))
	for {
		off := b.ix.Offset(idx)
		switch {
		case b.bits%8 == 0 && b.bits > 8 || b.bits == 8 && b.vbits == 8:
			s := off * int64(b.bits/8)
			chunk = append(chunk, b.Data[s:s+int64(b.bits/8)]...)
		default:
			v := b.BitsAt(off)
			if b.bits > b.vbits && b.dt.IsSigned() {
				v = uint64(signExtend(v, b.vbits))
			}
			for i := range item {
				chunk = append(chunk, byte(v>>(8*i)))
			}
		}
		if len(chunk) >= 1<<16-16 {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
		if !layout.NextIndex(idx, b.dims) {
			break
		}
	}
	_, err := w.Write(chunk)
	return err
}
