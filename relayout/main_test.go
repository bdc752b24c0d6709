package relayout

import (
	"os"
	"runtime"
	"testing"

	"github.com/tpulayout/tpulayout/simd"
)

// referenceCaches are the cache sizes the plan decisions in these tests were measured
// and written for (1 MiB L2 a core, 32 MiB last-level cache, as on the EPYC and Cascade
// Lake VMs of bench/). Block sizes and streaming thresholds follow the cache sizes, so
// on a host with a 2 MiB L2 and a 260 MiB L3 the same shapes plan otherwise; every test
// runs with these sizes, and TestHostCaches runs the oracle sweep with the host's own.
func referenceCaches() (l2, l3 int) { return 1 << 20, 32 << 20 }

// referenceCPUs is the logical CPUs of that model: enough that the last-level cache
// counts whole (llcBytes).
func referenceCPUs() int { return 8 }

func TestMain(m *testing.M) {
	cacheBytes, numCPU = referenceCaches, referenceCPUs
	os.Exit(m.Run())
}

// withHostCaches runs f with the host's own cache sizes.
func withHostCaches(f func()) {
	defer func() { cacheBytes, numCPU = referenceCaches, referenceCPUs }()
	cacheBytes, numCPU = simd.CacheBytes, runtime.NumCPU
	f()
}

// The random pairs against the reference, planned for this host's caches: the sizes
// every other test pins are not the ones users' plans take.
func TestHostCaches(t *testing.T) {
	l2, l3 := simd.CacheBytes()
	t.Logf("host caches: L2 %d KiB, last level %d KiB", l2>>10, l3>>10)
	withHostCaches(func() { TestRandomPairs(t) })
}
