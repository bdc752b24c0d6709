package simd

import (
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// CPU features, detected once at start-up. The AVX2 implementation also
// needs F16C (VCVTPS2PH/VCVTPH2PS); the AVX-512 one needs F, BW and VL.
var (
	cpuAVX2   = cpuid.CPU.Supports(cpuid.AVX2, cpuid.F16C)
	cpuAVX512 = cpuAVX2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL)
	// VBMI's byte permutes of two tables (VPERMT2B) widen f8 to 16-bit floats by lookup.
	cpuVBMI = cpuAVX512 && cpuid.CPU.Supports(cpuid.AVX512VBMI)
)

// prefetchToL2 says that Prefetch asks with PREFETCHT1 (into L2) rather than
// PREFETCHNTA. The relayout plans ask for lines a whole kernel call ahead, tens of KiB
// of traffic before they are read. Intel CPUs put NTA lines in L1 alone, which evicts
// them first, so they came from memory twice; on AMD NTA gains (bench/design-notes.md).
// The hint changes speed only.
var prefetchToL2 = cpuid.CPU.VendorID == cpuid.Intel

// useStringCopy says that the registered vector sets copy a long row asked to stream
// (a CopyRows row of ntThreshold bytes or more) with REP MOVSB rather than CopyNT's
// loop of non-temporal stores: on AMD family 1Ah (Zen 5) with ERMS, where the
// microcode's copy streams faster (bench/design-notes.md). Other CPUs keep CopyNT.
// Their twins (Kernels.WithStringCopy) choose the other way, for callers that
// measured it. It changes speed only.
var useStringCopy = cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family == 0x1a && cpuid.CPU.Supports(cpuid.ERMS)

// ntThreshold is the destination size (bytes written by one call) from which
// the vector kernels other than Copy switch to non-temporal stores: the L2
// size reported by the CPU, or 1 MiB (the point where Go's own memmove
// switches) if it is unknown.
var ntThreshold = func() int {
	if l2, _ := CacheBytes(); l2 > 0 {
		return l2
	}
	return 1 << 20
}()

// CacheBytes returns the sizes of the L2 cache (per core) and of the last-level cache
// as the CPU reports them, 0 where it does not. This package and its users size their
// blocks and pick non-temporal stores from these numbers.
func CacheBytes() (l2, l3 int) {
	return max(cpuid.CPU.Cache.L2, 0), max(cpuid.CPU.Cache.L3, 0)
}

// Features reports the CPU features the vector kernels can use on this
// machine, comma-separated in a fixed order, for example
// "avx2,f16c,avx512f,avx512bw,avx512vl,avx512vbmi". It returns "none" in
// purego and noasm builds, on other architectures, and on CPUs without AVX2.
// The string has no spaces, so it can be used as a benchmark configuration
// value.
func Features() string {
	if !asmEnabled || !cpuAVX2 {
		return "none"
	}
	var f []string
	for _, c := range []struct {
		name string
		id   cpuid.FeatureID
	}{
		{"avx2", cpuid.AVX2},
		{"f16c", cpuid.F16C},
		{"avx512f", cpuid.AVX512F},
		{"avx512bw", cpuid.AVX512BW},
		{"avx512vl", cpuid.AVX512VL},
		{"avx512vbmi", cpuid.AVX512VBMI},
		{"avx512vbmi2", cpuid.AVX512VBMI2},
		{"avx512bf16", cpuid.AVX512BF16},
	} {
		if cpuid.CPU.Supports(c.id) {
			f = append(f, c.name)
		}
	}
	return strings.Join(f, ",")
}
