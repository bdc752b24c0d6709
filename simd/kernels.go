package simd

import (
	"os"
	"sync"
	"sync/atomic"
)

// Kernels is one implementation's set of kernels. All fields are non-nil.
//
// All lengths are in elements unless named Bytes; strides are in bytes.
// Slices are little-endian byte slices. Kernels never allocate. They panic
// (a programmer error) if a slice is too short for the given lengths; the
// check is done once per call, before any byte is written.
type Kernels struct {
	Name string // "generic", "avx2", "avx512"

	// Copy copies len(src) bytes to dst with ordinary stores;
	// len(dst) >= len(src). The slices must not overlap.
	Copy func(dst, src []byte)
	// CopyNT has the same result as Copy but uses non-temporal stores
	// where it helps (destinations larger than the cache) and ends with
	// SFENCE.
	CopyNT func(dst, src []byte)

	// Transpose32, Transpose16 and Transpose8 transpose a rows×cols matrix of
	// W-byte elements (W = 4, 2, 1):
	//
	//	dst[j*dstStride + i*W : +W] = src[i*srcStride + j*W : +W]   for i < rows, j < cols
	//
	// Strides must be >= 0; destination rows must not overlap.
	Transpose32 func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	Transpose16 func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	Transpose8  func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	// Transpose32NT, Transpose16NT and Transpose8NT have the same results but
	// use non-temporal stores where every store fills a cache line (AVX-512,
	// destination rows aligned to 64 bytes), and end with SFENCE: for
	// destinations larger than the cache, they save the read of each line
	// before it is written.
	Transpose32NT func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	Transpose16NT func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	Transpose8NT  func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	// Transpose32Stream, Transpose16Stream and Transpose8Stream are the
	// non-temporal transposes without the closing SFENCE, as Rows batches with
	// Stream set: a series of them (the blocks of one large transpose or
	// permutation) ends with one call of Fence, before other goroutines read dst.
	Transpose32Stream func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	Transpose16Stream func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	Transpose8Stream  func(dst []byte, dstStride int, src []byte, srcStride int, rows, cols int)
	// Transpose32Tiles is Transpose32 into destination rows that come in groups of g
	// (the 2, 4 or 8 rows of 32-bit units of a TPU tile; 2 for 8-bit T(8,128)(4,1)), groupStride bytes apart:
	//
	//	dst[(j/g)*groupStride + (j%g)*dstStride + i*4 : +4] = src[i*srcStride + j*4 : +4]
	//
	// so that one 64-byte source line feeds several tiles. With stream it uses
	// non-temporal stores where each fills a line, without the closing SFENCE (see
	// Transpose32Stream). g must be >= 1; strides >= 0.
	Transpose32Tiles func(dst []byte, dstStride, groupStride, g int, src []byte, srcStride int, rows, cols int, stream bool)
	// Transpose32FromTiles is its inverse: Transpose32 from source rows that come in
	// groups of g, groupStride bytes apart (the tiles read back):
	//
	//	dst[j*dstStride + i*4 : +4] = src[(i/g)*groupStride + (i%g)*srcStride + j*4 : +4]
	Transpose32FromTiles func(dst []byte, dstStride int, src []byte, srcStride, groupStride, g int, rows, cols int, stream bool)
	// TileKernels reports whether Transpose32Tiles and Transpose32FromTiles have whole-line
	// kernels for groups of g rows (AVX-512 and AVX2, g = 2, 4 or 8); elsewhere they run Transpose32
	// one group at a time, no faster than the caller doing so.
	TileKernels func(g int) bool

	// Interleave16 packs 16-bit pairs: for i < n, dst16[2i] = a16[i] and
	// dst16[2i+1] = b16[i] (a is the even row, the low half of each 32-bit
	// word). Deinterleave16 is its inverse.
	Interleave16   func(dst, a, b []byte, n int)
	Deinterleave16 func(a, b, src []byte, n int)
	// Interleave8x4 packs 8-bit quads: dst[4i+k] = rk[i] for k = 0..3.
	// Deinterleave8x4 is its inverse.
	Interleave8x4   func(dst, r0, r1, r2, r3 []byte, n int)
	Deinterleave8x4 func(r0, r1, r2, r3, src []byte, n int)

	// Conversions of n elements. f32 is 4 bytes per element, bf16 and f16
	// are 2. Rounding is to nearest even, see [F32ToBF16Bits],
	// [F32ToF16Bits], [BF16BitsToF32] and [F16BitsToF32] for the exact
	// per-element results.
	F32ToBF16 func(dst, src []byte, n int)
	F32ToF16  func(dst, src []byte, n int)
	BF16ToF32 func(dst, src []byte, n int)
	F16ToF32  func(dst, src []byte, n int)
	// Fused conversion and pair packing:
	// dst16[2i] = bf16(aF32[i]), dst16[2i+1] = bf16(bF32[i]).
	F32ToBF16Interleave func(dst, a, b []byte, n int)
	F32ToF16Interleave  func(dst, a, b []byte, n int)
	// Fused inverse: aF32[i] = f32(src16[2i]), bF32[i] = f32(src16[2i+1]).
	BF16DeinterleaveToF32 func(a, b, src []byte, n int)

	// Batched forms of the kernels above: r.N calls, see [Rows]. Each has the
	// result of calling its single-call form once per row (Copy with n-byte
	// rows), and the same bounds rule for the whole batch.
	CopyRows                  func(dst, src []byte, n int, r Rows) // n bytes per row
	F32ToBF16Rows             func(dst, src []byte, n int, r Rows)
	F32ToF16Rows              func(dst, src []byte, n int, r Rows)
	BF16ToF32Rows             func(dst, src []byte, n int, r Rows)
	F16ToF32Rows              func(dst, src []byte, n int, r Rows)
	Interleave16Rows          func(dst, a, b []byte, n int, r Rows)
	Deinterleave16Rows        func(a, b, src []byte, n int, r Rows)
	F32ToBF16InterleaveRows   func(dst, a, b []byte, n int, r Rows)
	F32ToF16InterleaveRows    func(dst, a, b []byte, n int, r Rows)
	BF16DeinterleaveToF32Rows func(a, b, src []byte, n int, r Rows)
	Interleave8x4Rows         func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	Deinterleave8x4Rows       func(r0, r1, r2, r3, src []byte, n int, r Rows)

	// f8 conversions, batched only: f32 (4 bytes an element) to f8e4m3fn or f8e5m2
	// (1 byte) and back, and f32 rows converted and packed in 8-bit quads,
	// dst[4i+k] = f8(rk[i]). [F32ToF8E4M3FNBits], [F32ToF8E5M2Bits],
	// [F8E4M3FNBitsToF32] and [F8E5M2BitsToF32] are the per-element results.
	F32ToF8E4M3FNRows func(dst, src []byte, n int, r Rows)
	F32ToF8E5M2Rows   func(dst, src []byte, n int, r Rows)
	F8E4M3FNToF32Rows func(dst, src []byte, n int, r Rows)
	F8E5M2ToF32Rows   func(dst, src []byte, n int, r Rows)
	// f8 runs widened to bf16 and f16 (2 bytes an element), exact: the 16-bit value
	// of the f32 the f8 is, [F8E4M3FNBitsToF32] then [F32ToBF16Bits] or [F32ToF16Bits].
	F8E4M3FNToBF16Rows func(dst, src []byte, n int, r Rows)
	F8E4M3FNToF16Rows  func(dst, src []byte, n int, r Rows)
	F8E5M2ToBF16Rows   func(dst, src []byte, n int, r Rows)
	F8E5M2ToF16Rows    func(dst, src []byte, n int, r Rows)
	// bf16 and f16 runs to f8, rounded once: f8(f32(x)), [BF16BitsToF32] or
	// [F16BitsToF32] (exact) then [F32ToF8E4M3FNBits] or [F32ToF8E5M2Bits].
	BF16ToF8E4M3FNRows             func(dst, src []byte, n int, r Rows)
	BF16ToF8E5M2Rows               func(dst, src []byte, n int, r Rows)
	F16ToF8E4M3FNRows              func(dst, src []byte, n int, r Rows)
	F16ToF8E5M2Rows                func(dst, src []byte, n int, r Rows)
	F32ToF8E4M3FNInterleave8x4Rows func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	F32ToF8E5M2Interleave8x4Rows   func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	// The same from bf16 and f16 rows (2 bytes an element), rounded once as the runs are.
	BF16ToF8E4M3FNInterleave8x4Rows func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	BF16ToF8E5M2Interleave8x4Rows   func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	F16ToF8E4M3FNInterleave8x4Rows  func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	F16ToF8E5M2Interleave8x4Rows    func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
	// The inverse of the packing: rk[i] = f32(src[4i+k]) (exact).
	F8E4M3FNDeinterleave8x4ToF32Rows func(r0, r1, r2, r3, src []byte, n int, r Rows)
	F8E5M2Deinterleave8x4ToF32Rows   func(r0, r1, r2, r3, src []byte, n int, r Rows)

	// f8 quads unpacked into four bf16 or f16 rows, exact: rk[i] = to(src[4i+k]) as
	// F8E4M3FNToBF16Rows and the others convert. F8QuadsTo16Kernel reports whether
	// they have vector kernels (AVX-512 with VBMI); elsewhere they are Go, slower than
	// the quad unpacking followed by the run conversion.
	F8E4M3FNDeinterleave8x4ToBF16Rows func(r0, r1, r2, r3, src []byte, n int, r Rows)
	F8E4M3FNDeinterleave8x4ToF16Rows  func(r0, r1, r2, r3, src []byte, n int, r Rows)
	F8E5M2Deinterleave8x4ToBF16Rows   func(r0, r1, r2, r3, src []byte, n int, r Rows)
	F8E5M2Deinterleave8x4ToF16Rows    func(r0, r1, r2, r3, src []byte, n int, r Rows)
	F8QuadsTo16Kernel                 bool

	// SplitNibblesRows splits n bytes of src into their nibbles, one a byte:
	// lo[i] = src[i] & 15, hi[i] = src[i] >> 4 (int4 rows two a byte, read back
	// from (8,1)E(4) tiles).
	SplitNibblesRows func(lo, hi, src []byte, n int, r Rows)
	// SplitNibbleWordsRows reads back (8,1)E(4) words: n 32-bit words of src, each
	// holding eight rows' 4-bit elements of one column (row 2k in the low nibble of
	// byte k, row 2k+1 in the high), into the eight rows of dst, rowStride bytes
	// apart, one element a byte, zero-extended:
	// dst[m*rowStride + i] = src[4i + m/2] >> (4*(m%2)) & 15 for m < 8. The rows of
	// a batch's call must not overlap each other or another call's.
	SplitNibbleWordsRows func(dst []byte, rowStride int, src []byte, n int, r Rows)
	// JoinNibblesRows is its inverse: out[i] = lo[i]&15 | hi[i]<<4 (int4 rows joined
	// two a byte for (8,1)E(4) tiles; the bits of lo and hi above 4 are dropped).
	JoinNibblesRows func(out, lo, hi []byte, n int, r Rows)
	// PackNibblePairsRows packs n neighbouring pairs, out[i] = in[2i]&15 | in[2i+1]<<4
	// (an int4 row into (8,1)E(4) words); UnpackNibblePairsRows is its inverse for n
	// bytes of in, out[2i] = in[i]&15, out[2i+1] = in[i]>>4 (zero-extended).
	PackNibblePairsRows   func(out, in []byte, n int, r Rows)
	UnpackNibblePairsRows func(out, in []byte, n int, r Rows)

	// Fence orders the non-temporal stores of earlier Rows batches with
	// Stream set before any later store (SFENCE); a no-op where there are none.
	Fence func()

	// Prefetch asks for src's cache lines ahead of the reads that follow
	// (PREFETCHNTA, PREFETCHT1 on Intel CPUs); it changes no result and is a
	// no-op in the generic set.
	Prefetch func(src []byte)

	// Fill sets dst to repeated copies of pattern; len(pattern) is in
	// {1, 2, 4, 8, 16} and divides len(dst).
	Fill func(dst, pattern []byte)
}

// registry lists the implementations this CPU can run, generic first, then
// faster ones. The architecture file appends to it from its init function.
var registry = []*Kernels{genericKernels}

// register adds k to the registry. It is called only from init functions.
func register(k *Kernels) { registry = append(registry, k) }

// Generic returns the portable Go implementation. It is always available and
// is the reference the other implementations are tested against.
func Generic() *Kernels { return genericKernels }

// Available returns the implementations this CPU can run: generic first, then
// the faster ones in order of preference. The caller must not modify the
// returned slice or the Kernels it points to.
func Available() []*Kernels { return registry[:len(registry):len(registry)] }

// Lookup returns the implementation with the given name ("generic", "avx2",
// "avx512"). It reports false if the name is unknown or the implementation
// cannot run here (wrong CPU, or a purego/noasm build).
func Lookup(name string) (*Kernels, bool) {
	for _, k := range registry {
		if k.Name == name {
			return k, true
		}
	}
	return nil, false
}

// EnvVar names the environment variable that, when set to an implementation
// name that [Lookup] accepts, makes [Default] return that implementation.
// It is read once, on the first call to Default.
const EnvVar = "TPULAYOUT_SIMD"

var (
	defaultOnce sync.Once
	defaultImpl atomic.Pointer[Kernels]
)

func initDefault() { defaultImpl.CompareAndSwap(nil, choose(os.Getenv(EnvVar))) }

// choose is the implementation Default starts with when EnvVar holds name: the named
// one if Lookup knows it, else the best this CPU can run.
func choose(name string) *Kernels {
	if k, ok := Lookup(name); ok && name != "" {
		return k
	}
	return registry[len(registry)-1]
}

// Default returns the best implementation for this CPU. The choice is made
// once, from the CPU features (see [Features]); purego and noasm builds
// always get [Generic]. [EnvVar] and [Use] can override it.
func Default() *Kernels {
	defaultOnce.Do(initDefault)
	return defaultImpl.Load()
}

// Use makes Default return the implementation with the given name, and returns
// a function that restores the previous choice. It reports false, and changes
// nothing, if [Lookup] does not know the name. Use is meant for tests and
// benchmarks that want to force a code path in packages built on Default.
func Use(name string) (restore func(), ok bool) {
	k, ok := Lookup(name)
	if !ok {
		return func() {}, false
	}
	prev := Default()
	defaultImpl.Store(k)
	return func() { defaultImpl.Store(prev) }, true
}
