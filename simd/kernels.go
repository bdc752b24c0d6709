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

	// Transpose32Tiles is Transpose(4, Ordinary) into destination rows that come in groups of g
	// (the 2, 4 or 8 rows of 32-bit units of a TPU tile; 2 for 8-bit T(8,128)(4,1)), groupStride bytes apart:
	//
	//	dst[(j/g)*groupStride + (j%g)*dstStride + i*4 : +4] = src[i*srcStride + j*4 : +4]
	//
	// so that one 64-byte source line feeds several tiles. With stream it uses
	// non-temporal stores where each fills a line, without the closing SFENCE (see
	// [Streaming]). g must be >= 1; strides >= 0.
	Transpose32Tiles func(dst []byte, dstStride, groupStride, g int, src []byte, srcStride int, rows, cols int, stream bool)
	// Transpose32FromTiles is its inverse: Transpose(4, Ordinary) from source rows that come in
	// groups of g, groupStride bytes apart (the tiles read back):
	//
	//	dst[j*dstStride + i*4 : +4] = src[(i/g)*groupStride + (i%g)*srcStride + j*4 : +4]
	Transpose32FromTiles func(dst []byte, dstStride int, src []byte, srcStride, groupStride, g int, rows, cols int, stream bool)
	// TileKernels reports whether Transpose32Tiles and Transpose32FromTiles have whole-line
	// kernels for groups of g rows (AVX-512 and AVX2, g = 2, 4 or 8); elsewhere they run Transpose(4, Ordinary)
	// one group at a time, no faster than the caller doing so.
	TileKernels func(g int) bool

	// CopyRows is Copy batched, n bytes a row: see [Rows].
	CopyRows RowsFunc

	// F8QuadsTo16Kernel reports whether Unpack4 from f8 to bf16 and f16 has vector
	// kernels (AVX-512 with VBMI); elsewhere they are Go, slower than the quad
	// unpacking followed by the run conversion.
	F8QuadsTo16Kernel bool

	// Nibbles is the int4 kernels.
	Nibbles Nibbles

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

	// The kernels keyed by types and stores, for the lookups (keys.go).
	conv    [nDTypes][nDTypes]RowsFunc
	pack2   [nDTypes][nDTypes]Pack2Func
	unpack2 [nDTypes][nDTypes]Unpack2Func
	pack4   [nDTypes][nDTypes]Pack4Func
	unpack4 [nDTypes][nDTypes]Unpack4Func
	trans   [3][nStores]TransposeFunc // by width: 1, 2, 4 bytes
	one     single
	// stringCopy: CopyRows copies a long row asked to stream with REP MOVSB, not
	// CopyNT (the registered vector sets where useStringCopy holds). twin is the same
	// set with the other choice, nil in the generic set (see WithStringCopy).
	stringCopy bool
	twin       *Kernels
}

// StringCopy reports whether CopyRows copies each row long enough to stream (one
// whose batch is asked to stream and whose destination is at least the
// non-temporal threshold) with the CPU's string copy, REP MOVSB, rather than with
// CopyNT's loop of non-temporal stores. The registered sets do where the CPU streams
// faster that way by this package's rule (AMD family 1Ah with ERMS); see
// [Kernels.WithStringCopy] to choose otherwise.
func (k *Kernels) StringCopy() bool { return k.stringCopy }

// WithStringCopy returns the set that differs from k at most in [Kernels.StringCopy],
// which is on: k itself if it already makes that choice, else its one twin (the
// same for every call, so that sets can be compared). The choice changes the speed of
// CopyRows, never its result; it is for callers that measured which copy is faster on
// the machine, as relayout's wisdom does. The generic set, the only one of purego and
// noasm builds, has no string copy and returns itself.
func (k *Kernels) WithStringCopy(on bool) *Kernels {
	if k.stringCopy == on || k.twin == nil {
		return k
	}
	return k.twin
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
