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
// L3 a core of any x86 part we know (EPYC 9184X: 768 MiB over 16 cores). A virtual machine can
// report its host's whole L3 (a 2-vCPU Xeon VM, family 6 model 207: 260 MiB) while
// sharing it with other guests; there `relayout-bench -tune` found streaming ahead from
// 3 MiB at every size to 253 MiB moved, and with this bound (streaming from 48 MiB)
// s4 8192² (96 MiB moved) read back from T(8,128)(8,1)E(4) ran at 0.71–0.78 of copy()
// against 0.38, s8 8192² into T(32,128)(4,1) at 1.28–1.48 against 0.57–0.70
// (bench/narrow2-2026-11-26.txt). On machines where the OS sees the cores the cache serves the
// bound changes nothing.
const llcPerCPU = 48 << 20

// llcBytes is the last-level cache plans count on: the reported one, at most
// llcPerCPU for each logical CPU; 0 where the CPU does not say.
func llcBytes() int64 {
	_, l3 := cacheBytes()
	return min(int64(l3), llcPerCPU*int64(max(numCPU(), 1)))
}

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
