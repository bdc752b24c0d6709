package buffer

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpulayout/tpulayout/layout"
)

// Number is the Go element type of a slice that [FromSlice] and [ToSlice] copy: each
// stands for the XLA type of the same kind and width (float32 for f32, uint16 for u16,
// …).
type Number interface {
	float32 | float64 | int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64
}

// FromSlice sets the logical elements of dst, in row-major order of their index, to the
// values of src, converted from src's type (float32 is f32, uint16 is u16, …) to dst's
// with the bits of [ConvertElement]: f32 → bf16 rounds to nearest even, floats to
// integers truncate and saturate. len(src) must be dst.Len(). Padding is left as it is.
//
// To copy raw bits instead of values (bf16 elements as uint16 bit patterns), use a view
// of the same Data as the unsigned type of the same width: Wrap(dst.Shape.WithDType(
// layout.U16), dst.Data).
//
// A row-major dst is filled a run at a time; other layouts element by element through
// the index math (for large device images, fill a row-major buffer and relay it out with
// package relayout).
func FromSlice[T Number](dst *Buffer, src []T) error {
	st, enc, _ := sliceCodec(src)
	return dst.fill(st, len(src), enc)
}

// ToSlice sets dst to the logical elements of src in row-major order of their index,
// converted to dst's type as [FromSlice] converts the other way (bf16 → float32 is
// exact, f32 → int32 truncates). len(dst) must be src.Len(). Padding is not read.
func ToSlice[T Number](dst []T, src *Buffer) error {
	dt, _, dec := sliceCodec(dst)
	return src.read(dt, len(dst), dec)
}

// A codec moves elements [i, i+m) of a Go slice or matrix to or from chunk, little-endian
// in the slice type's XLA width.
type codec func(chunk []byte, i, m int)

// sliceCodec returns the XLA type of s's elements and its codecs.
func sliceCodec[T Number](s []T) (layout.DType, codec, codec) {
	le := binary.LittleEndian
	switch s := any(s).(type) {
	case []float32:
		return layout.F32, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint32(c[4*j:], math.Float32bits(v))
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = math.Float32frombits(le.Uint32(c[4*j:]))
				}
			}
	case []float64:
		return f64Codecs(s, func(k int) int { return k })
	case []int8:
		return layout.S8, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					c[j] = byte(v)
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = int8(c[j])
				}
			}
	case []uint8:
		return layout.U8, func(c []byte, i, m int) { copy(c, s[i:i+m]) },
			func(c []byte, i, m int) { copy(s[i:i+m], c) }
	case []int16:
		return layout.S16, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint16(c[2*j:], uint16(v))
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = int16(le.Uint16(c[2*j:]))
				}
			}
	case []uint16:
		return layout.U16, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint16(c[2*j:], v)
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = le.Uint16(c[2*j:])
				}
			}
	case []int32:
		return layout.S32, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint32(c[4*j:], uint32(v))
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = int32(le.Uint32(c[4*j:]))
				}
			}
	case []uint32:
		return layout.U32, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint32(c[4*j:], v)
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = le.Uint32(c[4*j:])
				}
			}
	case []int64:
		return layout.S64, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint64(c[8*j:], uint64(v))
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = int64(le.Uint64(c[8*j:]))
				}
			}
	case []uint64:
		return layout.U64, func(c []byte, i, m int) {
				for j, v := range s[i : i+m] {
					le.PutUint64(c[8*j:], v)
				}
			}, func(c []byte, i, m int) {
				for j := range s[i : i+m] {
					s[i+j] = le.Uint64(c[8*j:])
				}
			}
	}
	panic("buffer: unreachable: a Number type without a codec")
}

// f64Codecs are the codecs of float64 elements held at data[at(k)] for logical element
// k: a slice, or a strided matrix.
func f64Codecs(data []float64, at func(k int) int) (layout.DType, codec, codec) {
	le := binary.LittleEndian
	return layout.F64, func(c []byte, i, m int) {
			for j := range m {
				le.PutUint64(c[8*j:], math.Float64bits(data[at(i+j)]))
			}
		}, func(c []byte, i, m int) {
			for j := range m {
				data[at(i+j)] = math.Float64frombits(le.Uint64(c[8*j:]))
			}
		}
}

// chunkElems is how many elements fill and read move per step, through stack buffers.
const chunkElems = 512

// fill sets the n logical elements of b, in row-major order, from elements of type st
// that enc writes to a chunk.
func (b *Buffer) fill(st layout.DType, n int, enc codec) error {
	if err := b.bulkCheck(st, n, "source has"); err != nil {
		return err
	}
	if b.mapped {
		return fmt.Errorf("%w: %v maps a file read-only", ErrShape, b.Shape)
	}
	sb := st.Bits()
	c, byRun := b.runConverter(b.dt, b.bits, st, sb)
	dense := b.ix.IsRowMajorDense()
	var chunk, conv [chunkElems * 8]byte
	idx := make([]int64, b.Rank())
	for i := 0; i < n; i += chunkElems {
		m := min(chunkElems, n-i)
		enc(chunk[:], i, m)
		switch {
		case dense && byRun:
			b.convertRun(c, b.Data[i*b.bits/8:], chunk[:], m)
		case byRun:
			b.convertRun(c, conv[:], chunk[:], m)
			for j := range m {
				StoreBits(b.Data, b.ix.Offset(idx), b.bits, LoadBits(conv[:], int64(j), b.bits))
				layout.NextIndex(idx, b.dims)
			}
		default: // sub-byte elements: one at a time
			for j := range m {
				v := Widen(b.dt, b.bits, ConvertElement(b.dt, st, LoadBits(chunk[:], int64(j), sb)))
				StoreBits(b.Data, b.ix.Offset(idx), b.bits, v)
				layout.NextIndex(idx, b.dims)
			}
		}
	}
	return nil
}

// read gets the n logical elements of b, in row-major order, as elements of type dt
// that dec reads from a chunk.
func (b *Buffer) read(dt layout.DType, n int, dec codec) error {
	if err := b.bulkCheck(dt, n, "destination has"); err != nil {
		return err
	}
	db := dt.Bits()
	c, byRun := b.runConverter(dt, db, b.dt, b.bits)
	dense := b.ix.IsRowMajorDense()
	var chunk, raw [chunkElems * 8]byte
	idx := make([]int64, b.Rank())
	for i := 0; i < n; i += chunkElems {
		m := min(chunkElems, n-i)
		switch {
		case dense && byRun:
			b.convertRun(c, chunk[:], b.Data[i*b.bits/8:], m)
		case byRun:
			for j := range m {
				StoreBits(raw[:], int64(j), b.bits, LoadBits(b.Data, b.ix.Offset(idx), b.bits))
				layout.NextIndex(idx, b.dims)
			}
			b.convertRun(c, chunk[:], raw[:], m)
		default:
			for j := range m {
				v := ConvertElement(dt, b.dt, LoadBits(b.Data, b.ix.Offset(idx), b.bits))
				StoreBits(chunk[:], int64(j), db, Widen(dt, db, v))
				layout.NextIndex(idx, b.dims)
			}
		}
		dec(chunk[:], i, m)
	}
	return nil
}

// bulkCheck checks that the buffer can exchange n elements of type t.
func (b *Buffer) bulkCheck(t layout.DType, n int, side string) error {
	if int64(n) != b.Len() {
		return fmt.Errorf("%w: %v has %d elements, the %s %d", ErrSize, b.Shape, b.Len(), side, n)
	}
	if !CanConvert(b.dt, t) || !CanConvert(t, b.dt) {
		return fmt.Errorf("%w: no conversion between %s and %s", ErrDType, b.dt, t)
	}
	return nil
}

// runConverter returns the Converter for whole runs from (st, sb) to (dt, db): nil for
// the same type and width (a copy); byRun is false when elements must go one at a time
// (sub-byte widths, which a Converter does not take).
func (b *Buffer) runConverter(dt layout.DType, db int, st layout.DType, sb int) (c *Converter, byRun bool) {
	if dt == st && db == sb && db%8 == 0 {
		return nil, true
	}
	c, err := NewConverter(dt, db, st, sb)
	return c, err == nil
}

// convertRun converts m elements from src to dst with c, or copies them when c is nil
// (the widths are then equal: b's own, or the slice type's).
func (b *Buffer) convertRun(c *Converter, dst, src []byte, m int) {
	if c == nil {
		w := b.bits
		copy(dst[:m*w/8], src)
		return
	}
	c.Convert(dst, src, m)
}
