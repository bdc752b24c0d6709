// Package simd provides the vector kernels of the relayout engine: copies of
// contiguous runs, block transposes, 16-bit pair packing and 8-bit quad
// packing, f32↔bf16 and f32↔f16 conversions (alone and fused with packing),
// and fills. The kernels take raw little-endian byte slices, element counts
// and byte strides only; they know nothing about layouts.
//
// # Overview
//
// A [Kernels] value is one implementation's set of kernels. [Default] returns
// the best one for this CPU, chosen once from the features reported by
// github.com/klauspost/cpuid/v2; [Generic] returns the portable Go one, which
// is also the reference the other implementations are tested against;
// [Available] and [Lookup] list and select the implementations this CPU can
// run, so that tests and benchmarks can force one ([Use] and the
// TPULAYOUT_SIMD environment variable, see [EnvVar], change what Default
// returns). [Features] describes the CPU features in use, for benchmark
// headers.
//
//	k := simd.Default()
//	k.Pack2(simd.F32, simd.BF16)(dst, evenRow, oddRow, n, simd.Rows{N: 1}) // f32 rows → bf16 (2,1) pairs
//
// The kernels that differ by element type are looked up by key, as a table row
// each: [Kernels.Convert] (from a type to another), [Kernels.Pack2],
// [Kernels.Unpack2], [Kernels.Pack4] and [Kernels.Unpack4] (rows packed in 16-bit
// pairs or 8-bit quads, converted on the way) and [Kernels.Transpose] (by width
// and [Stores]). They return nil for a key the set has no kernel for; every set
// has the same keys.
//
// Lengths are in elements unless named Bytes, strides in bytes. Kernels never
// allocate. They panic if a slice is shorter than the lengths require (a
// programmer error); the check is made once per call, before anything is
// written, so the assembly never touches memory outside the slices. Inputs
// and outputs must not overlap.
//
// The packing and conversion kernels, and CopyRows, are batched: they run on
// several rows a fixed stride apart (see [Rows]) in one call: one bounds check and, in the vector implementations,
// one assembly loop over the rows. Short rows need it: a T(8,128) tile row
// is 128 elements, and per-call costs add up over thousands of them. A batch
// with Rows.Stream set uses non-temporal
// stores without a fence; [Kernels.Fence] ends a series of them.
//
// The f8 kernels (f32, bf16 and f16 ↔ f8e4m3fn and f8e5m2, as runs and as rows
// packed in (4,1) quads) round the same way and follow ml_dtypes' non-saturating
// rules: f8e4m3fn overflow becomes NaN, f8e5m2 overflow ±Inf (see
// [F32ToF8E4M3FNBits] and [F32ToF8E5M2Bits]); bf16 and f16 round once, through
// their exact f32 values, and f8 → bf16 or f16 is exact. All have AVX-512 and AVX2
// kernels; on AVX-512 CPUs with VBMI, f8 → bf16 and f16 (runs, and quads unpacked
// into rows) is a table lookup.
// Nibbles.SplitWordsRows reads (8,1)E(4) int4 words back into their eight rows, and
// Nibbles.JoinWordsRows writes them from the rows.
//
// Conversions round to nearest, ties to even. Finite values too large for the
// target become ±Inf; NaNs stay NaNs with their sign and become quiet (to bf16
// the canonical 0x7fc0, to f16 with the upper payload bits, as XLA converts
// them); f16 subnormals are exact. [F32ToBF16Bits], [F32ToF16Bits], [BF16BitsToF32] and
// [F16BitsToF32] are the per-element definitions, and every kernel agrees
// with them bit for bit (checked exhaustively over all 2^32 f32 inputs for
// f32 to bf16 and f16).
//
// Copy uses ordinary stores and suits destinations that stay in cache.
// CopyNT uses non-temporal stores (after aligning the destination to 64
// bytes) and ends with SFENCE; use it when the whole destination is larger
// than the cache, even if each call copies a short run. The transposes with
// [NonTemporal] stores are their counterparts (AVX-512
// only: elsewhere a store covers part of a line and they are the ordinary
// ones); those with [Streaming] stores are the same
// without the fence, for a series of blocks that ends with one
// [Kernels.Fence]. The other vector
// kernels switch to non-temporal stores by themselves when one call writes at
// least the L2 cache size and their destinations can be aligned.
// Prefetch asks for lines ahead of the reads that follow; it changes no result.
//
// # Implementations
//
//   - "generic": portable Go, always available. It is the only
//     implementation in builds with the purego or noasm build tag, with
//     gccgo, and on architectures other than amd64.
//   - "avx2": amd64 assembly for CPUs with AVX2 and F16C. Every kernel has
//     a vector loop; heads and tails run the generic Go code. Transposes
//     use 8×8 (32-bit) and 16×16 (16-bit and 8-bit) register blocks; the
//     non-temporal 32-bit and 16-bit transposes take two blocks down the
//     source at a time, so that each store pair completes a line (the 8-bit
//     one stores ordinarily); Transpose32Tiles and Transpose32FromTiles take
//     16×16 blocks as two halves of 8 rows, storing whole 64-byte lines.
//   - "avx512": amd64 assembly for CPUs with AVX-512 F, BW and VL, with
//     512-bit vectors. The 32-, 16- and 8-bit transposes use 16×16,
//     32×32 and 64×64 blocks (F and BW instructions only, no VBMI);
//     the 8-bit one leaves to the AVX2 kernel the matrices whose dstStride is
//     not a multiple of 64, where 64-byte stores would split cache lines.
//     Transpose32Tiles and Transpose32FromTiles have 16×16 kernels for groups
//     of 2, 4 and 8 rows, as on AVX2 (the generic set runs the 32-bit transpose a group
//     at a time).
//     AVX512_BF16 is not used (neither the Go assembler nor avo knows
//     VCVTNE2PS2BF16); f32→bf16 rounding is done with integer arithmetic,
//     f32↔f16 with F16C (VCVTPS2PH/VCVTPH2PS).
//
// The assembly is generated with avo from simd/_asm (a separate module, so
// avo is not a dependency of this one); simd/_asm/check.sh checks that the
// committed files are up to date. The generator also writes tables_amd64.go,
// which fills each set's keyed tables. Under the race detector the wrappers
// report the memory ranges the assembly reads and writes.
package simd
