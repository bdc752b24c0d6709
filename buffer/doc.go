// Package buffer holds typed byte buffers in XLA layouts: the bytes of one array in a
// given shape and layout, read and written by logical index, converted between element
// types, loaded from and saved to raw files (.npy and safetensors in the subpackages npy
// and safetensors), and compared.
//
// # Overview
//
// A [Buffer] is modelled on image.Gray16 and gonum's blas64.General: a public Data
// []byte beside the [layout.Shape] (with its layout) and the compiled
// [layout.Indexer]. Data holds exactly the layout's footprint, tile and tail padding
// included; elements are little-endian, and sub-byte elements (E(4), E(2), E(1)) are
// packed in tiled linear order, least-significant bits first within a byte. [New]
// allocates zeroed, 64-byte-aligned memory; [Wrap] uses the caller's bytes after
// checking their length.
//
// # Access
//
// Typed accessors such as [Buffer.F32], [Buffer.SetBF16] and [Buffer.S32] read and
// write one element by logical index without allocating; [Buffer.At] and [Buffer.Set]
// work through float64 for every real type; [Buffer.Bits] and [Buffer.SetBits] give the
// raw bits of any type up to 64 bits, which is what validators compare. An index out of
// range, or an accessor of the wrong type, is a programmer error and panics.
//
// Whole arrays move between a buffer and Go values in row-major order of the logical
// index: [FromSlice] and [ToSlice] with slices such as []float32, []uint16 or []int8
// (converting between the slice's type and the buffer's as [ConvertElement] does), and
// [FromGeneral], [ToGeneral], [FromDense] and [ToDense] with gonum's f64 matrices
// (blas64.General, *mat.Dense). These return errors, wrapping [ErrSize] or [ErrDType],
// when the sizes or types do not fit.
//
// # Conversions
//
// f32↔bf16 and f32↔f16 round to nearest even and keep NaN a (quiet) NaN, through the
// scalars of package simd: to bf16 the canonical 0x7fc0 with the sign, to f16 with its
// upper payload bits, as XLA's convert gives them (checked against XLA's recorded
// conversions in testdata/xla; docs/conversions.md). The f8 formats (and f4e2m1fn) round to nearest even and
// follow ml_dtypes' non-saturating conversion, as JAX does: f8e5m2 overflows to ±Inf,
// f8e4m3fn (no Inf, largest finite 448) overflows to NaN ([F32ToF8E4M3FN],
// [F32ToF8E5M2]); f4e2m1fn saturates. [ConvertElement] converts one element between any
// two real types with XLA's convert semantics: integers wrap, floats to integers
// truncate and saturate. A [Converter] gives the same bits for whole runs of elements,
// without a call per element (package relayout uses it for the pairs without a SIMD
// kernel; BenchmarkConverter times it).
//
// # Files
//
// [ReadRaw] and [WriteRaw] handle the bare bytes of a buffer; the file formats are
// packages of their own, as image/png is: [github.com/tpulayout/tpulayout/buffer/npy]
// (.npy) and [github.com/tpulayout/tpulayout/buffer/safetensors], built on [ReadAt]
// and [Buffer.WriteRowMajor]. Writers are atomic ([WriteFileAtomic]): a failure leaves
// no file behind. Readers map files of at least [MmapThreshold] bytes read-only (with
// golang.org/x/sys/unix; elsewhere they read into memory); [Buffer.Close] unmaps them,
// and [Buffer.ReleasePages] lets a pass over a mapping drop what it has consumed.
// Errors from user input never panic; they wrap sentinels such as [ErrSize] and
// [ErrFormat], which the format packages use too.
//
// # Comparing
//
// [Compare] matches two buffers of the same logical dims, possibly in different
// layouts and types, bit-exactly or within ULP, absolute and relative tolerances,
// after rounding both to the narrower type (an f32 reference against a bf16 result is
// rounded to bf16 first), and reports counts, the worst errors and the first
// mismatches.
package buffer
