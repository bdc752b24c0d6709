package buffer

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpulayout/tpulayout/layout"
)

// Accessors take a logical index (one entry per dimension, row-major meaning: idx[0] is
// dimension 0 whatever the layout). An index out of range, an index of the wrong
// length, or a typed accessor of the wrong element type is a programmer error and
// panics, as in gonum's At/Set; none of the accessors allocate.

// offset bounds-checks idx and returns its element offset.
func (b *Buffer) offset(idx []int64) int64 {
	if len(idx) != len(b.dims) {
		panic(fmt.Sprintf("buffer: index %v has %d entries for rank %d", idx, len(idx), len(b.dims)))
	}
	for i, d := range b.dims {
		if uint64(idx[i]) >= uint64(d) {
			panic(fmt.Sprintf("buffer: index %v out of range for dims %v", idx, b.dims))
		}
	}
	return b.ix.Offset(idx)
}

func (b *Buffer) want(dt layout.DType) {
	if b.dt != dt {
		panic("buffer: " + dt.String() + " accessor on a " + b.dt.String() + " buffer")
	}
}

// Offset returns the element offset of a logical index in the tiled linear order
// (bounds-checked; see [layout.Indexer.Offset]).
func (b *Buffer) Offset(idx []int64) int64 { return b.offset(idx) }

// Bits returns the raw bits of the element at idx: the low Bits() bits of the dtype,
// zero-extended (an s4 of value -1 reads 0xF). It works for every type of at most 64
// bits, sub-byte and packed types included; it panics for c128.
func (b *Buffer) Bits(idx []int64) uint64 { return b.BitsAt(b.offset(idx)) }

// SetBits stores the low dtype.Bits() bits of v at idx. When the storage is wider than
// the type (an s4 without E(4) takes a byte), signed values are stored sign-extended and
// unsigned ones zero-extended, so the byte holds the same integer.
func (b *Buffer) SetBits(idx []int64, v uint64) { b.SetBitsAt(b.offset(idx), v) }

// BitsAt returns the raw bits of the element at element offset off in the tiled linear
// order (no logical bounds check: padding elements are readable).
func (b *Buffer) BitsAt(off int64) uint64 {
	if b.bits > 64 {
		panic("buffer: raw bits of a " + b.dt.String() + " element do not fit in 64 bits")
	}
	return LoadBits(b.Data, off, b.bits) & mask(min(b.bits, b.vbits))
}

// SetBitsAt stores v at element offset off (see [Buffer.SetBits]).
func (b *Buffer) SetBitsAt(off int64, v uint64) {
	if b.bits > 64 {
		panic("buffer: raw bits of a " + b.dt.String() + " element do not fit in 64 bits")
	}
	StoreBits(b.Data, off, b.bits, Widen(b.dt, b.bits, v))
}

// Widen returns the low dt.Bits() bits of v as stored in an element width bits wide:
// sign-extended for signed types stored wider than they are (an s4 without E(4) takes a
// byte, and -1 is 0xFF), else zero-extended.
func Widen(dt layout.DType, width int, v uint64) uint64 {
	v &= mask(dt.Bits())
	if width > dt.Bits() && dt.IsSigned() {
		v = uint64(signExtend(v, dt.Bits())) & mask(width)
	}
	return v
}

// LoadBits returns element off of data, whose elements are width bits wide: 8, 16, 32
// or 64 (little-endian), or fewer than 8, packed least-significant bits first in
// element order (layout's E(n)).
func LoadBits(data []byte, off int64, width int) uint64 {
	switch width {
	case 8:
		return uint64(data[off])
	case 16:
		return uint64(binary.LittleEndian.Uint16(data[off*2:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(data[off*4:]))
	case 64:
		return binary.LittleEndian.Uint64(data[off*8:])
	}
	if width > 8 {
		panic(fmt.Sprintf("buffer: %d-bit elements are not addressable", width))
	}
	bit := off * int64(width)
	i, sh := bit>>3, uint(bit&7)
	v := uint(data[i])
	if int(sh)+width > 8 {
		v |= uint(data[i+1]) << 8
	}
	return uint64(v>>sh) & mask(width)
}

// StoreBits stores the low width bits of v as element off of data (see [LoadBits]).
func StoreBits(data []byte, off int64, width int, v uint64) {
	switch width {
	case 8:
		data[off] = byte(v)
		return
	case 16:
		binary.LittleEndian.PutUint16(data[off*2:], uint16(v))
		return
	case 32:
		binary.LittleEndian.PutUint32(data[off*4:], uint32(v))
		return
	case 64:
		binary.LittleEndian.PutUint64(data[off*8:], v)
		return
	}
	if width > 8 {
		panic(fmt.Sprintf("buffer: %d-bit elements are not addressable", width))
	}
	bit := off * int64(width)
	i, sh := bit>>3, uint(bit&7)
	m := uint(mask(width)) << sh
	w := uint(data[i])
	two := int(sh)+width > 8
	if two {
		w |= uint(data[i+1]) << 8
	}
	w = w&^m | (uint(v)<<sh)&m
	data[i] = byte(w)
	if two {
		data[i+1] = byte(w >> 8)
	}
}

// At returns the element at idx as a float64: exact for every real type except 64-bit
// integers beyond 2^53. It panics for complex types.
func (b *Buffer) At(idx []int64) float64 { return valueOf(b.dt, b.Bits(idx)) }

// Set stores v at idx, converted as by [ConvertElement] from f64: floats round to
// nearest even (with the overflow rules of each format), integers truncate toward zero
// and saturate, NaN stores 0 in integers, pred stores v≠0. It panics for complex types.
func (b *Buffer) Set(idx []int64, v float64) {
	b.SetBits(idx, ConvertElement(b.dt, layout.F64, math.Float64bits(v)))
}

// F32 returns the f32 element at idx.
func (b *Buffer) F32(idx []int64) float32 {
	b.want(layout.F32)
	return math.Float32frombits(binary.LittleEndian.Uint32(b.Data[b.offset(idx)*4:]))
}

// SetF32 stores an f32 element.
func (b *Buffer) SetF32(idx []int64, v float32) {
	b.want(layout.F32)
	binary.LittleEndian.PutUint32(b.Data[b.offset(idx)*4:], math.Float32bits(v))
}

// F64 returns the f64 element at idx.
func (b *Buffer) F64(idx []int64) float64 {
	b.want(layout.F64)
	return math.Float64frombits(binary.LittleEndian.Uint64(b.Data[b.offset(idx)*8:]))
}

// SetF64 stores an f64 element.
func (b *Buffer) SetF64(idx []int64, v float64) {
	b.want(layout.F64)
	binary.LittleEndian.PutUint64(b.Data[b.offset(idx)*8:], math.Float64bits(v))
}

// BF16 returns the bf16 element at idx widened to float32 (exact).
func (b *Buffer) BF16(idx []int64) float32 {
	b.want(layout.BF16)
	return BF16ToF32(binary.LittleEndian.Uint16(b.Data[b.offset(idx)*2:]))
}

// SetBF16 rounds v to bf16 (nearest even, a NaN the quiet NaN with its sign) and stores it.
func (b *Buffer) SetBF16(idx []int64, v float32) {
	b.want(layout.BF16)
	binary.LittleEndian.PutUint16(b.Data[b.offset(idx)*2:], F32ToBF16(v))
}

// F16 returns the f16 element at idx widened to float32 (exact).
func (b *Buffer) F16(idx []int64) float32 {
	b.want(layout.F16)
	return F16ToF32(binary.LittleEndian.Uint16(b.Data[b.offset(idx)*2:]))
}

// SetF16 rounds v to f16 (nearest even) and stores it.
func (b *Buffer) SetF16(idx []int64, v float32) {
	b.want(layout.F16)
	binary.LittleEndian.PutUint16(b.Data[b.offset(idx)*2:], F32ToF16(v))
}

// S8 returns the s8 element at idx.
func (b *Buffer) S8(idx []int64) int8 { b.want(layout.S8); return int8(b.Data[b.offset(idx)]) }

// SetS8 stores an s8 element.
func (b *Buffer) SetS8(idx []int64, v int8) { b.want(layout.S8); b.Data[b.offset(idx)] = byte(v) }

// U8 returns the u8 element at idx.
func (b *Buffer) U8(idx []int64) uint8 { b.want(layout.U8); return b.Data[b.offset(idx)] }

// SetU8 stores a u8 element.
func (b *Buffer) SetU8(idx []int64, v uint8) { b.want(layout.U8); b.Data[b.offset(idx)] = v }

// S16 returns the s16 element at idx.
func (b *Buffer) S16(idx []int64) int16 {
	b.want(layout.S16)
	return int16(binary.LittleEndian.Uint16(b.Data[b.offset(idx)*2:]))
}

// SetS16 stores an s16 element.
func (b *Buffer) SetS16(idx []int64, v int16) {
	b.want(layout.S16)
	binary.LittleEndian.PutUint16(b.Data[b.offset(idx)*2:], uint16(v))
}

// U16 returns the u16 element at idx.
func (b *Buffer) U16(idx []int64) uint16 {
	b.want(layout.U16)
	return binary.LittleEndian.Uint16(b.Data[b.offset(idx)*2:])
}

// SetU16 stores a u16 element.
func (b *Buffer) SetU16(idx []int64, v uint16) {
	b.want(layout.U16)
	binary.LittleEndian.PutUint16(b.Data[b.offset(idx)*2:], v)
}

// S32 returns the s32 element at idx.
func (b *Buffer) S32(idx []int64) int32 {
	b.want(layout.S32)
	return int32(binary.LittleEndian.Uint32(b.Data[b.offset(idx)*4:]))
}

// SetS32 stores an s32 element.
func (b *Buffer) SetS32(idx []int64, v int32) {
	b.want(layout.S32)
	binary.LittleEndian.PutUint32(b.Data[b.offset(idx)*4:], uint32(v))
}

// U32 returns the u32 element at idx.
func (b *Buffer) U32(idx []int64) uint32 {
	b.want(layout.U32)
	return binary.LittleEndian.Uint32(b.Data[b.offset(idx)*4:])
}

// SetU32 stores a u32 element.
func (b *Buffer) SetU32(idx []int64, v uint32) {
	b.want(layout.U32)
	binary.LittleEndian.PutUint32(b.Data[b.offset(idx)*4:], v)
}

// S64 returns the s64 element at idx.
func (b *Buffer) S64(idx []int64) int64 {
	b.want(layout.S64)
	return int64(binary.LittleEndian.Uint64(b.Data[b.offset(idx)*8:]))
}

// SetS64 stores an s64 element.
func (b *Buffer) SetS64(idx []int64, v int64) {
	b.want(layout.S64)
	binary.LittleEndian.PutUint64(b.Data[b.offset(idx)*8:], uint64(v))
}

// U64 returns the u64 element at idx.
func (b *Buffer) U64(idx []int64) uint64 {
	b.want(layout.U64)
	return binary.LittleEndian.Uint64(b.Data[b.offset(idx)*8:])
}

// SetU64 stores a u64 element.
func (b *Buffer) SetU64(idx []int64, v uint64) {
	b.want(layout.U64)
	binary.LittleEndian.PutUint64(b.Data[b.offset(idx)*8:], v)
}

// Pred returns the pred element at idx (packed with E(1) or one byte each).
func (b *Buffer) Pred(idx []int64) bool {
	b.want(layout.Pred)
	return LoadBits(b.Data, b.offset(idx), b.bits) != 0 // any nonzero stored bits, not only bit 0
}

// SetPred stores a pred element (as 1 or 0).
func (b *Buffer) SetPred(idx []int64, v bool) {
	b.want(layout.Pred)
	var x uint64
	if v {
		x = 1
	}
	b.SetBits(idx, x)
}
