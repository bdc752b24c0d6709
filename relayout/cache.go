package relayout

import "github.com/klauspost/cpuid/v2"

// defaultBlockBytes sizes one side of a transpose block so that a source and a
// destination block together fill about half the L1 data cache.
func defaultBlockBytes() int {
	l1 := cpuid.CPU.Cache.L1D
	if l1 <= 0 {
		l1 = 32 << 10
	}
	b := 256
	for b*4 <= l1 {
		b *= 2
	}
	return b
}

// streamingBytes is the destination size above which copies use non-temporal stores:
// beyond the last-level cache they save the write-allocate read; inside it they lose.
func streamingBytes() int64 {
	if l3 := cpuid.CPU.Cache.L3; l3 > 0 {
		return int64(l3)
	}
	if l2 := cpuid.CPU.Cache.L2; l2 > 0 {
		return int64(l2) * 4
	}
	return 32 << 20
}
