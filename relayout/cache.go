package relayout

import "github.com/tpulayout/tpulayout/simd"

// cacheBytes is the cache model plans are sized for: the L2 of one core and the
// last-level cache, 0 where the CPU does not say. Tests pin it to one machine's sizes
// (main_test.go) so that the plan decisions they check do not depend on the host.
var cacheBytes = simd.CacheBytes

// defaultBlockBytes sizes one side of a transpose block to the L2 cache (a power of two
// no larger): the simd kernels block for L1 inside it by walking 256-row strips, and
// larger blocks mean fewer block edges (bench/design-notes.md).
func defaultBlockBytes() int {
	l2 := int(l2Bytes())
	b := 256
	for b*2 <= l2 && b < 1<<24 {
		b *= 2
	}
	return b
}

// streamingBytes is the size of source and destination together from which copies use
// non-temporal stores: half the last-level cache. From there the copy evicts the lines
// it writes before they are read again, and streaming them saves the read of each;
// below it ordinary stores won (bench/design-notes.md).
func streamingBytes() int64 {
	if w := wisdom.Load(); w != nil && w.StreamingBytes > 0 {
		return w.StreamingBytes // measured (relayout-bench -tune)
	}
	l2, l3 := cacheBytes()
	if l3 > 0 {
		return int64(l3) / 2
	}
	if l2 > 0 {
		return int64(l2) * 2
	}
	return 16 << 20
}

// transposeStreamingBytes is the destination size from which plain transposes stream
// even inside the last-level cache: four L2s. Below it, bf16 and s8 transposes lost
// (1024²: 0.63 → 0.58 and 0.70 → 0.59 of copy()); from it all three types gained
// (2048²: f32 0.40 → 0.74, bf16 0.28 → 0.64, s8 0.46 → 0.56; s8 4096² 0.08 → 0.30).
func transposeStreamingBytes() int64 {
	return 4 * l2Bytes()
}

// l2Bytes is the L2 cache of a core, 1 MiB where the CPU does not say.
func l2Bytes() int64 {
	if l2, _ := cacheBytes(); l2 > 0 {
		return int64(l2)
	}
	return 1 << 20
}
