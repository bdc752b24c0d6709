package simd

// DType names the element type of a kernel's operand, the key of the lookups
// [Kernels.Convert], [Kernels.Pack2], [Kernels.Unpack2], [Kernels.Pack4] and
// [Kernels.Unpack4]. Bits8, Bits16 and Bits32 stand for any type of that width
// copied bit for bit; a lookup from a type to itself is the one from its width.
type DType uint8

const (
	Bits8 DType = iota
	Bits16
	Bits32
	F32      // IEEE binary32
	BF16     // bfloat16
	F16      // IEEE binary16
	F8E4M3FN // float8 e4m3fn: no infinities, one NaN
	F8E5M2   // float8 e5m2: IEEE-like
	nDTypes
)

// Bytes is the type's width in bytes.
func (t DType) Bytes() int {
	return [nDTypes]int{Bits8: 1, Bits16: 2, Bits32: 4, F32: 4, BF16: 2, F16: 2, F8E4M3FN: 1, F8E5M2: 1}[t]
}

func (t DType) String() string {
	return [nDTypes]string{"bits8", "bits16", "bits32", "f32", "bf16", "f16", "f8e4m3fn", "f8e5m2"}[t]
}

// key is the table index of the lookup from one type to another: a type to itself
// is its width's BitsN.
func key(from, to DType) (DType, DType) {
	if from == to {
		b := [...]DType{1: Bits8, 2: Bits16, 4: Bits32}[from.Bytes()]
		return b, b
	}
	return from, to
}

// The kernels the lookups return, batched over [Rows]: each has the result of its
// single-row form once per row, and checks the bounds of the whole batch once.
type (
	// RowsFunc converts n elements of src to dst.
	RowsFunc func(dst, src []byte, n int, r Rows)
	// Pack2Func packs two rows in 16-bit pairs: dst16[2i] = to(a[i]), dst16[2i+1] =
	// to(b[i]) (a is the even row, the low half of each 32-bit word).
	Pack2Func func(dst, a, b []byte, n int, r Rows)
	// Unpack2Func is the inverse: a[i] = to(src16[2i]), b[i] = to(src16[2i+1]).
	Unpack2Func func(a, b, src []byte, n int, r Rows)
	// Pack4Func packs four rows in 8-bit quads: dst[4i+k] = to(rk[i]).
	Pack4Func func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	// Unpack4Func is the inverse: rk[i] = to(src[4i+k]).
	Unpack4Func func(r0, r1, r2, r3, src []byte, n int, r Rows)
	// TransposeFunc transposes a rows×cols matrix of W-byte elements:
	//
	//	dst[j*dstStride + i*W : +W] = src[i*srcStride + j*W : +W]   for i < rows, j < cols
	//
	// Strides must be >= 0; destination rows must not overlap.
	TransposeFunc func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
)

// Stores says how a transpose stores: [Ordinary]; [NonTemporal], non-temporal
// where every store fills a cache line (AVX-512, destination rows aligned to 64
// bytes), ending with SFENCE: for destinations larger than the cache, they save
// the read of each line before it is written; or [Streaming], the non-temporal
// stores without the closing SFENCE, as Rows batches with Stream set: a series of
// them (the blocks of one large transpose or permutation) ends with one call of
// Fence, before other goroutines read dst.
type Stores uint8

const (
	Ordinary Stores = iota
	NonTemporal
	Streaming
	nStores
)

// Rounding is to nearest even. [F32ToBF16Bits], [F32ToF16Bits], [BF16BitsToF32],
// [F16BitsToF32], [F32ToF8E4M3FNBits], [F32ToF8E5M2Bits], [F8E4M3FNBitsToF32]
// and [F8E5M2BitsToF32] are the per-element results; bf16 and f16 go to f8 by way
// of the f32 they are (exact), rounded once, and f8 widens exactly.

// Convert returns the kernel that converts runs of from to runs of to, or nil
// if the set has none: f32 to and from bf16, f16, f8e4m3fn and f8e5m2; bf16 and
// f16 to and from both f8 types.
func (k *Kernels) Convert(from, to DType) RowsFunc {
	from, to = key(from, to)
	return k.conv[from][to]
}

// Pack2 returns the kernel that converts two rows of from to to and packs them in
// 16-bit pairs, or nil: a 16-bit type to itself, f32 to bf16 and f16.
func (k *Kernels) Pack2(from, to DType) Pack2Func {
	from, to = key(from, to)
	return k.pack2[from][to]
}

// Unpack2 returns the inverse of a pair packing of from, converted to to, or nil:
// a 16-bit type to itself, bf16 to f32.
func (k *Kernels) Unpack2(from, to DType) Unpack2Func {
	from, to = key(from, to)
	return k.unpack2[from][to]
}

// Pack4 returns the kernel that converts four rows of from to to and packs them
// in 8-bit quads, or nil: an 8-bit type to itself, f32, bf16 and f16 to both f8
// types.
func (k *Kernels) Pack4(from, to DType) Pack4Func {
	from, to = key(from, to)
	return k.pack4[from][to]
}

// Unpack4 returns the inverse of a quad packing of from, converted to to, or nil:
// an 8-bit type to itself, both f8 types to f32, bf16 and f16. [Kernels.F8QuadsTo16Kernel]
// says whether those to bf16 and f16 have vector kernels.
func (k *Kernels) Unpack4(from, to DType) Unpack4Func {
	from, to = key(from, to)
	return k.unpack4[from][to]
}

// Transpose returns the transpose of elements of width bytes (4, 2 or 1) with the
// given stores; nil for other widths.
func (k *Kernels) Transpose(width int, s Stores) TransposeFunc {
	if width != 1 && width != 2 && width != 4 || s >= nStores {
		return nil
	}
	return k.trans[width/2][s]
}

// single holds a set's single-row kernels, the forms its batches run on rows too
// long to batch, keyed as the lookups are.
type single struct {
	conv    [nDTypes][nDTypes]func(dst, src []byte, n int)
	pack2   [nDTypes][nDTypes]func(dst, a, b []byte, n int)
	unpack2 [nDTypes][nDTypes]func(a, b, src []byte, n int)
	pack4   [nDTypes][nDTypes]func(dst, r0, r1, r2, r3 []byte, n int)
	unpack4 [nDTypes][nDTypes]func(r0, r1, r2, r3, src []byte, n int)
}
