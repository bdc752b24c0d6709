package relayout

import (
	"runtime"

	"github.com/tpulayout/tpulayout/simd"
)

// cacheBytes is the cache model plans are sized for: the L2 of one core and the
// last-level cache, 0 where the CPU does not say. Tests pin it to one machine's sizes
// (main_test.go) so that the plan decisions they check do not depend on the host.
var cacheBytes = simd.CacheBytes

// numCPU is the logical CPUs the OS gives this process's machine (tests pin it with
// cacheBytes).
var numCPU = runtime.NumCPU

// llcPerCPU bounds the last-level cache counted for each logical CPU: 48 MiB, the most
// L3 a core of any x86 part we know (EPYC 9184X: 768 MiB over 16 cores). A virtual
// machine can report its host's whole L3 while sharing it with other guests; the bound
// keeps such a machine from waiting far too long to stream (bench/design-notes.md). On
// machines where the OS sees the cores the cache serves the bound changes nothing.
const llcPerCPU = 48 << 20

// llcBytes is the last-level cache plans count on: the reported one, at most
// llcPerCPU for each logical CPU; 0 where the CPU does not say.
func llcBytes() int64 {
	_, l3 := cacheBytes()
	return min(int64(l3), llcPerCPU*int64(max(numCPU(), 1)))
}

// defaultBlockBytes is the wisdom's block size (relayout-bench -tune) where it has one,
// else one side of a transpose block sized to the L2 cache (a power of two no larger):
// the simd kernels block for L1 inside it by walking 256-row strips, and larger blocks
// mean fewer block edges (bench/design-notes.md).
func defaultBlockBytes() int {
	if w := wisdom.Load(); w != nil && w.BlockBytes > 0 {
		return w.BlockBytes // measured (relayout-bench -tune)
	}
	return cacheBlockBytes()
}

// cacheBlockBytes is the block size derived from the L2 cache alone.
func cacheBlockBytes() int {
	l2 := int(l2Bytes())
	b := 256
	for b*2 <= l2 && b < 1<<24 {
		b *= 2
	}
	return b
}

// streamingBytes is the size of source and destination together from which copies use
// non-temporal stores: half the last-level cache (llcBytes). From there the copy evicts the lines
// it writes before they are read again, and streaming them saves the read of each;
// below it ordinary stores won (bench/design-notes.md).
func streamingBytes() int64 {
	if w := wisdom.Load(); w != nil && w.StreamingBytes > 0 {
		return w.StreamingBytes // measured (relayout-bench -tune)
	}
	if l3 := llcBytes(); l3 > 0 {
		return l3 / 2
	}
	if l2, _ := cacheBytes(); l2 > 0 {
		return int64(l2) * 2
	}
	return 16 << 20
}

// transposeStreamingBytes is the destination size from which plain transposes stream
// even inside the last-level cache: the wisdom's (relayout-bench --tune) where it has
// one, else four L2s. Below that streaming lost for bf16 and s8, from it every type
// gained (bench/design-notes.md).
func transposeStreamingBytes() int64 {
	if w := wisdom.Load(); w != nil && w.TransposeStreamingBytes > 0 {
		return w.TransposeStreamingBytes // measured
	}
	return 4 * l2Bytes()
}

// l2Bytes is the L2 cache of a core, 1 MiB where the CPU does not say.
func l2Bytes() int64 {
	if l2, _ := cacheBytes(); l2 > 0 {
		return int64(l2)
	}
	return 1 << 20
}
