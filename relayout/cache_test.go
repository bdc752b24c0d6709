package relayout

import "testing"

// The streaming threshold counts at most llcPerCPU of last-level cache a logical CPU:
// a 2-vCPU VM reporting its host's 260 MiB L3 streams from 48 MiB, not 130 MiB, and
// machines whose OS sees the cores the cache serves keep half the reported cache.
func TestStreamingBytesPerCPU(t *testing.T) {
	defer func(c func() (int, int), n func() int) { cacheBytes, numCPU = c, n }(cacheBytes, numCPU)
	defer SetWisdom(nil)() // the default rule, whatever TPULAYOUT_WISDOM names
	for _, c := range []struct {
		l2, l3, cpus int
		want         int64
	}{
		{2 << 20, 260 << 20, 2, 48 << 20},  // a VM reporting its host's whole L3
		{2 << 20, 260 << 20, 1, 24 << 20},  // one CPU
		{2 << 20, 260 << 20, 8, 130 << 20}, // 384 MiB of bound: the reported cache
		{1 << 20, 32 << 20, 2, 16 << 20},   // the EPYC VM: unchanged
		{1 << 20, 0, 2, 2 << 20},           // no L3 reported: two L2s
		{2 << 20, 260 << 20, 0, 24 << 20},  // a CPU count below one counts as one
	} {
		cacheBytes = func() (int, int) { return c.l2, c.l3 }
		numCPU = func() int { return c.cpus }
		if got := streamingBytes(); got != c.want {
			t.Errorf("L2 %d MiB, L3 %d MiB, %d CPUs: streaming from %d MiB, want %d MiB", c.l2>>20, c.l3>>20, c.cpus, got>>20, c.want>>20)
		}
	}
}
