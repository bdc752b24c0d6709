// widen-ceiling: what a copy that reads N bytes and streams 2N bytes out can reach
// against a non-temporal copy of the N bytes, on this machine, now. Reading int4
// tiles back to one element a byte (relayout-bench s4-*-to-rowmajor) is such a copy,
// and its ratio to the fastest copy of the source bytes is bound by this one.
//
//   gcc -O2 -mavx512f -mavx512bw -o /tmp/widen-ceiling bench/widen-ceiling.c
//   flock /tmp/bench.lock /tmp/widen-ceiling [ones]
//
// Each variant runs 11 times interleaved with the others; the least time counts.
// Variants, all with non-temporal (streaming) stores and one SFENCE:
//   copy      N → N, the yardstick
//   copy2N    the N bytes copied twice (2N read, 2N written)
//   streamsK  N → 2N into K destination rows at once, a line of each a step, its
//             source prefetched 4 KiB ahead (K = 8: SplitNibbleWordsRows' pattern)
//   split8    SplitNibbleWordsRows' AVX-512 loop as C (its shuffles and stores)
// The source is pseudo-random bytes, as relayout-bench fills it; "ones" fills it with
// 0x01 instead, which shows that the stores' data moves the figures (lines of zeros
// stored faster on the Zen 5 VM, bench/design-notes.md).
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N ((size_t)32 << 20)
#define RS ((size_t)8192) // destination row: SplitNibbleWordsRows at s4 8192²
static uint8_t *src, *dst;

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void copy_nt(uint8_t *d, const uint8_t *s) {
	for (size_t i = 0; i < N; i += 256)
		for (int q = 0; q < 256; q += 64)
			_mm512_stream_si512((void *)(d + i + q), _mm512_load_si512(s + i + q));
}

static void copy(void) { copy_nt(dst, src); _mm_sfence(); }
static void copy2(void) { copy_nt(dst, src); copy_nt(dst + N, src); _mm_sfence(); }

// streams writes K rows of RS bytes from each K*RS/2 bytes of source.
static void streams(int K) {
	size_t grp = K * RS / 2;
	__m512i m = _mm512_set1_epi8(15);
	for (size_t g = 0; g < N / grp; g++) {
		const uint8_t *s = src + g * grp;
		uint8_t *o = dst + g * K * RS;
		for (size_t j = 0; j < RS; j += 64) {
			const uint8_t *p = s + j * K / 2;
			for (int q = 0; q < K * 32; q += 64)
				_mm_prefetch((const char *)p + q + 4096, _MM_HINT_NTA);
			for (int r = 0; r < K; r += 2) {
				__m512i a = _mm512_load_si512(p + r * 32);
				_mm512_stream_si512((void *)(o + r * RS + j), _mm512_and_si512(a, m));
				_mm512_stream_si512((void *)(o + (r + 1) * RS + j), _mm512_and_si512(_mm512_srli_epi16(a, 4), m));
			}
		}
	}
	_mm_sfence();
}

static void split8(void) {
	__m512i sh = _mm512_set4_epi32(0x0f0b0703, 0x0e0a0602, 0x0d090501, 0x0c080400);
	__m512i pm = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
	__m512i m = _mm512_set1_epi8(15);
	for (size_t g = 0; g < N / (4 * RS); g++) {
		const uint8_t *s = src + g * 4 * RS;
		uint8_t *o = dst + g * 8 * RS;
		for (size_t i = 0; i < 4 * RS; i += 256) {
			for (int q = 0; q < 256; q += 64)
				_mm_prefetch((const char *)s + i + q + 4096, _MM_HINT_NTA);
			__m512i v[4];
			for (int q = 0; q < 4; q++)
				v[q] = _mm512_permutexvar_epi32(pm, _mm512_shuffle_epi8(_mm512_load_si512(s + i + 64 * q), sh));
			__m512i t0 = _mm512_shuffle_i32x4(v[0], v[1], 0x44), t1 = _mm512_shuffle_i32x4(v[2], v[3], 0x44);
			__m512i t2 = _mm512_shuffle_i32x4(v[0], v[1], 0xee), t3 = _mm512_shuffle_i32x4(v[2], v[3], 0xee);
			__m512i w[4] = {_mm512_shuffle_i32x4(t0, t1, 0x88), _mm512_shuffle_i32x4(t0, t1, 0xdd),
			                _mm512_shuffle_i32x4(t2, t3, 0x88), _mm512_shuffle_i32x4(t2, t3, 0xdd)};
			for (int k = 0; k < 4; k++) {
				_mm512_stream_si512((void *)(o + 2 * k * RS + i / 4), _mm512_and_si512(w[k], m));
				_mm512_stream_si512((void *)(o + (2 * k + 1) * RS + i / 4), _mm512_and_si512(_mm512_srli_epi16(w[k], 4), m));
			}
		}
	}
	_mm_sfence();
}

static void streams2(void) { streams(2); }
static void streams8(void) { streams(8); }
static void streams16(void) { streams(16); }

int main(int argc, char **argv) {
	src = aligned_alloc(4096, N);
	dst = aligned_alloc(4096, 2 * N);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < N; i += 8) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		memcpy(src + i, &x, 8);
	}
	if (argc > 1 && strcmp(argv[1], "ones") == 0)
		memset(src, 1, N);
	memset(dst, 2, 2 * N);
	struct { const char *name; void (*f)(void); double best; } v[] = {
		{"copy", copy, 1e9}, {"copy2N", copy2, 1e9}, {"streams2", streams2, 1e9},
		{"streams8", streams8, 1e9}, {"streams16", streams16, 1e9}, {"split8", split8, 1e9},
	};
	int nv = sizeof v / sizeof v[0];
	for (int rep = 0; rep < 11; rep++)
		for (int k = 0; k < nv; k++) {
			double t = now();
			v[k].f();
			if ((t = now() - t) < v[k].best)
				v[k].best = t;
		}
	for (int k = 0; k < nv; k++)
		printf("%-10s %6.2f GB/s of source  ratio to copy %.3f\n", v[k].name, N / v[k].best / 1e9, v[0].best / v[k].best);
	return 0;
}
