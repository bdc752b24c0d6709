package buffer

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tpulayout/tpulayout/layout"
)

// Alignment is the address alignment of the Data that [New] allocates.
const Alignment = 64

// Errors that callers can test for with [errors.Is].
var (
	// ErrSize: a byte count does not match the footprint of the shape.
	ErrSize error = &Kind{"size mismatch"}
	// ErrShape: a shape cannot back a buffer (tuple, `?` dim, bad layout, unsupported
	// type), or two shapes do not agree.
	ErrShape error = &Kind{"unsupported shape"}
	// ErrFormat: a file is not a valid .npy or safetensors file.
	ErrFormat error = &Kind{"invalid file format"}
	// ErrDType: a file's element type has no equivalent here, or the reverse.
	ErrDType error = &Kind{"unsupported element type"}
	// ErrNotFound: the named tensor is not in the file.
	ErrNotFound error = &Kind{"tensor not found"}
)

// Buffer is a typed view of the bytes of one array in a given layout.
//
// Data holds exactly the layout's footprint (see [layout.Indexer.FootprintBytes]),
// padding included. Elements are little-endian. An element with logical index idx
// starts at bit
//
//	Indexer().Offset(idx) * Indexer().ElementBits()
//
// of Data, counting bits of a byte from its least significant one: elements of a width
// that is a multiple of 8 start at byte Offset*ElementBits/8, and sub-byte elements
// (E(4), E(2), E(1)) are packed least-significant bits first, element j of a byte
// holding bits E*j … E*j+E-1, in the tiled linear order of the layout.
//
// Shape must not be changed after creation: the index math is compiled from it. A
// Buffer returned by [ReadRaw], [ReadAt] or the readers of packages npy and safetensors may map a file
// read-only: writing to its Data then faults. Call Close when done with such a buffer
// (Close is a no-op for heap buffers).
type Buffer struct {
	Shape layout.Shape // dtype, dims and layout (never a tuple)
	Data  []byte

	ix     *layout.Indexer
	dims   []int64
	bits   int // storage bits per element (E(n) or the dtype's storage width)
	vbits  int // the dtype's value bits
	dt     layout.DType
	unmap  func() error
	mapped bool
}

// New allocates a zeroed, 64-byte-aligned buffer holding the footprint of shape.
// A shape without a layout gets the row-major one.
func New(shape layout.Shape) (*Buffer, error) {
	b, err := newHeader(shape)
	if err != nil {
		return nil, err
	}
	return allocate(b)
}

// NewCompiled is [New] on a shape the caller has compiled already.
func NewCompiled(ix *layout.Indexer) (*Buffer, error) {
	shape := ix.Shape()
	if err := checkShape(shape); err != nil {
		return nil, err
	}
	return allocate(header(ix))
}

// allocate gives b zeroed, 64-byte-aligned data of its footprint.
func allocate(b *Buffer) (*Buffer, error) {
	n := b.ix.FootprintBytes()
	if tooBig(n) {
		return nil, fmt.Errorf("%w: %v needs %d bytes", ErrShape, b.Shape, n)
	}
	b.Data = alignedBytes(int(n))
	return b, nil
}

// maxAlloc bounds allocations so that a hostile shape cannot ask for more than the
// address space (the allocation itself may still fail with an out-of-memory crash).
const maxAlloc = 1 << 47

// tooBig reports whether n bytes cannot be allocated as one slice here.
func tooBig(n int64) bool { return tooBigFor(n, math.MaxInt) }

// tooBigFor is tooBig where int tops out at maxInt, so that tests on a 64-bit host
// check the 32-bit platforms' limit too.
func tooBigFor(n, maxInt int64) bool {
	return n < 0 || n > maxAlloc || n > maxInt-Alignment
}

// mappable reports whether size bytes can be mapped as one slice where int tops out
// at maxInt (tests pass math.MaxInt32 to check the 32-bit platforms' limit anywhere).
func mappable(size, maxInt int64) bool { return size > 0 && size <= maxInt }

// Wrap returns a buffer of shape that uses data as its storage. The length of data must
// be exactly the footprint; otherwise the error (wrapping [ErrSize]) names both sizes.
func Wrap(shape layout.Shape, data []byte) (*Buffer, error) {
	b, err := newHeader(shape)
	if err != nil {
		return nil, err
	}
	if want := b.ix.FootprintBytes(); int64(len(data)) != want {
		return nil, fmt.Errorf("%w: %v needs %d bytes, got %d", ErrSize, b.Shape, want, len(data))
	}
	b.Data = data
	return b, nil
}

// MustNew is like [New] but panics on error; for tests and examples.
func MustNew(shape layout.Shape) *Buffer {
	b, err := New(shape)
	if err != nil {
		panic(err)
	}
	return b
}

// newHeader compiles the shape and checks that this package can address its elements.
func newHeader(shape layout.Shape) (*Buffer, error) {
	if shape.Layout.MinorToMajor == nil && len(shape.Dims) > 0 {
		shape.Layout.MinorToMajor = layout.RowMajor(len(shape.Dims))
	}
	if err := checkShape(shape); err != nil {
		return nil, err
	}
	ix, err := layout.Compile(shape)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrShape, err)
	}
	return header(ix), nil
}

// header is the buffer of ix's shape, without data.
func header(ix *layout.Indexer) *Buffer {
	dt := ix.Shape().DType
	return &Buffer{Shape: ix.Shape(), ix: ix, dims: ix.Dims(), bits: ix.ElementBits(), vbits: dt.Bits(), dt: dt}
}

// checkShape checks that this package can address the elements of shape.
func checkShape(shape layout.Shape) error {
	if shape.Kind != layout.Array {
		return fmt.Errorf("%w: %v is not an array", ErrShape, shape)
	}
	dt := shape.DType
	if !dt.IsArray() {
		return fmt.Errorf("%w: element type %v", ErrShape, dt)
	}
	e := shape.Layout.ElementBits
	switch {
	case e == 0:
	case dt.Bits() >= 8 && e != int64(dt.Bits()):
		return fmt.Errorf("%w: %v: E(%d) on a %d-bit type", ErrShape, shape, e, dt.Bits())
	case dt.Bits() < 8 && (e < int64(dt.Bits()) || e > 8):
		return fmt.Errorf("%w: %v: E(%d) must be between %d and 8", ErrShape, shape, e, dt.Bits())
	}
	return nil
}

// alignedBytes returns n zeroed bytes whose first byte is 64-byte aligned.
func alignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	raw := make([]byte, n+Alignment-1)
	off := 0
	if r := uintptr(unsafe.Pointer(unsafe.SliceData(raw))) % Alignment; r != 0 {
		off = int(Alignment - r)
	}
	return raw[off : off+n : off+n]
}

// Indexer returns the compiled index math of the buffer's shape.
func (b *Buffer) Indexer() *layout.Indexer { return b.ix }

// DType returns the element type.
func (b *Buffer) DType() layout.DType { return b.dt }

// Dims returns the logical dimensions; do not modify them.
func (b *Buffer) Dims() []int64 { return b.dims }

// Rank returns the number of dimensions.
func (b *Buffer) Rank() int { return len(b.dims) }

// Len returns the number of logical elements.
func (b *Buffer) Len() int64 { return b.ix.LogicalElements() }

// ElementBits returns the storage bits of one element (E(n), or the type's storage width).
func (b *Buffer) ElementBits() int { return b.bits }

// Mapped reports whether Data is a read-only mapping of a file.
func (b *Buffer) Mapped() bool { return b.mapped }

// ReleasePages tells the system that Data[from:to] of a mapped buffer is consumed: on
// Linux its pages leave the process's resident set (they are read again from the file
// if touched), so a pass over a large mapped input keeps little of it resident. It does
// nothing for a buffer in memory, or where the system offers no such advice.
func (b *Buffer) ReleasePages(from, to int64) {
	if b.mapped {
		dropPages(b.Data[from:to])
	}
}

// Close releases a file mapping behind Data and sets Data to nil. It is a no-op for
// buffers in memory; it is safe to call more than once.
func (b *Buffer) Close() error {
	if b.unmap == nil {
		return nil
	}
	f := b.unmap
	b.unmap = nil
	b.Data = nil
	b.mapped = false
	return f()
}

// Clone returns a copy of b in newly allocated, writable memory.
func (b *Buffer) Clone() *Buffer {
	c := *b
	c.unmap, c.mapped = nil, false
	c.Data = alignedBytes(len(b.Data))
	copy(c.Data, b.Data)
	return &c
}

// IsRowMajorDense reports whether the buffer's bytes are exactly its logical elements in
// row-major (C) order with no padding: no tiles, no tail padding beyond the data, whole
// bytes per element, and the {n-1,…,0} layout (see [layout.Indexer.IsRowMajorDense]).
func (b *Buffer) IsRowMajorDense() bool { return b.ix.IsRowMajorDense() }

// isDense reports whether Data is the logical elements in C (fortran=false) or Fortran
// (fortran=true) order with nothing else.
func (b *Buffer) isDense(fortran bool) bool {
	if fortran {
		return b.ix.IsColumnMajorDense()
	}
	return b.ix.IsRowMajorDense()
}
