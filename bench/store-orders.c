// store-orders: in which order the int4 read-back of XLA's tiling should store.
// s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)} → row-major is 32 MiB of (8,1)E(4)
// words in bands of two 4 KiB tiles (8 word rows of 128 words) read back into rows of
// 256 bytes, 64 MiB streamed out. Each variant does SplitNibbleWordsRows' AVX-512 step
// (64 words → a line of each of 8 rows) in another order; the ratio is to a
// non-temporal copy of the 32 MiB timed in the same round (median over rounds, the
// variants' order rotated each round, ITER passes a variant a round).
//
//   gcc -O2 -mavx512f -mavx512bw -o /tmp/store-orders bench/store-orders.c
//   flock /tmp/bench.lock /tmp/store-orders [ROUNDS [ITER]]
//
//   split8k  the same bytes as s4 8192² (rows 8 KiB apart): the 8192² case's order
//   xtile    a tile's groups a call, a band after another (relayout at 974b1d3)
//   xgrp     a group's two tiles together, groups in order (2 KiB of rows at a time)
//   xburst   as xgrp, each row's four lines stored together (the 2 KiB in sequence)
//   xtburst  as xtile, each row's two lines of the tile stored together
//   x2dD     xtile on bands b and b+D at once, a step of each in turn (D = 8, 64)
//   x2half   the same with D half the array; x2near D = 1; x4d16 four bands 16 apart
//   xalt64   tiles of bands b and b+64 alternating, a tile at a time
//   xaltg64  groups of bands b and b+64 alternating, a group's 2 steps at a time
//   xbb      one word row of one tile in each of 64 bands (relayout before 974b1d3)
//   s8k2d1   split8k on groups g and g+1 at once; s8k2h g and g+half
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define N ((size_t)32 << 20)
static uint8_t *src, *dst, *cp;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static __m512i SH, PM, M;
static inline void deint(const uint8_t *s, __m512i w[4]) {
	__m512i v[4];
	for (int q = 0; q < 4; q++) v[q] = _mm512_permutexvar_epi32(PM, _mm512_shuffle_epi8(_mm512_loadu_si512(s + 64 * q), SH));
	__m512i t0 = _mm512_shuffle_i32x4(v[0], v[1], 0x44), t1 = _mm512_shuffle_i32x4(v[2], v[3], 0x44);
	__m512i t2 = _mm512_shuffle_i32x4(v[0], v[1], 0xee), t3 = _mm512_shuffle_i32x4(v[2], v[3], 0xee);
	w[0] = _mm512_shuffle_i32x4(t0, t1, 0x88); w[1] = _mm512_shuffle_i32x4(t0, t1, 0xdd);
	w[2] = _mm512_shuffle_i32x4(t2, t3, 0x88); w[3] = _mm512_shuffle_i32x4(t2, t3, 0xdd);
}
#define ST(p, v) _mm512_stream_si512((void *)(p), v)
#define LO(v) _mm512_and_si512(v, M)
#define HI(v) _mm512_and_si512(_mm512_srli_epi16(v, 4), M)
#define PF(p) _mm_prefetch((const char *)(p), _MM_HINT_NTA)
static void copy(void) {
	for (size_t i = 0; i < N; i += 256) for (int q = 0; q < 256; q += 64) ST(cp + i + q, _mm512_load_si512(src + i + q));
	_mm_sfence();
}
// one iteration: 64 words at s -> 64 bytes of 8 rows at o, rs apart
static inline void it8(const uint8_t *s, uint8_t *o, size_t rs) {
	for (int q = 0; q < 256; q += 64) PF(s + q + 4096);
	__m512i w[4]; deint(s, w);
	for (int k = 0; k < 4; k++) { ST(o + 2 * k * rs, LO(w[k])); ST(o + (2 * k + 1) * rs, HI(w[k])); }
}
static void split8k(void) { // 8192-byte rows, one group = 32 KiB src
	for (size_t g = 0; g < N / 32768; g++)
		for (size_t i = 0; i < 32768; i += 256) it8(src + g * 32768 + i, dst + g * 65536 + i / 4, 8192);
	_mm_sfence();
}
static void xtile(void) { // the plan: per tile, groups j, 2 iterations each
	for (size_t b = 0; b < N / 8192; b++) for (int t = 0; t < 2; t++) for (int j = 0; j < 8; j++) for (int i = 0; i < 2; i++)
		it8(src + b * 8192 + t * 4096 + j * 512 + i * 256, dst + b * 16384 + j * 2048 + t * 128 + i * 64, 256);
	_mm_sfence();
}
static void xgrp(void) { // groups in order, line-interleaved
	for (size_t b = 0; b < N / 8192; b++) for (int j = 0; j < 8; j++) for (int t = 0; t < 2; t++) for (int i = 0; i < 2; i++)
		it8(src + b * 8192 + t * 4096 + j * 512 + i * 256, dst + b * 16384 + j * 2048 + t * 128 + i * 64, 256);
	_mm_sfence();
}
static void xburst(void) { // groups in order, rows stored whole: 2 KiB sequential
	for (size_t b = 0; b < N / 8192; b++) for (int j = 0; j < 8; j++) {
		const uint8_t *s = src + b * 8192 + j * 512;
		uint8_t *o = dst + b * 16384 + j * 2048;
		__m512i w[4][4];
		for (int t = 0; t < 2; t++) for (int i = 0; i < 2; i++) {
			for (int q = 0; q < 256; q += 64) PF(s + t * 4096 + i * 256 + q + 4096);
			deint(s + t * 4096 + i * 256, w[2 * t + i]);
		}
		for (int k = 0; k < 4; k++) {
			for (int c = 0; c < 4; c++) ST(o + 2 * k * 256 + c * 64, LO(w[c][k]));
			for (int c = 0; c < 4; c++) ST(o + (2 * k + 1) * 256 + c * 64, HI(w[c][k]));
		}
	}
	_mm_sfence();
}
static void xtburst(void) { // per tile, rows' 128 B stored together
	for (size_t b = 0; b < N / 8192; b++) for (int t = 0; t < 2; t++) for (int j = 0; j < 8; j++) {
		const uint8_t *s = src + b * 8192 + t * 4096 + j * 512;
		uint8_t *o = dst + b * 16384 + j * 2048 + t * 128;
		__m512i w[2][4];
		for (int i = 0; i < 2; i++) { for (int q = 0; q < 256; q += 64) PF(s + i * 256 + q + 4096); deint(s + i * 256, w[i]); }
		for (int k = 0; k < 4; k++) {
			for (int c = 0; c < 2; c++) ST(o + 2 * k * 256 + c * 64, LO(w[c][k]));
			for (int c = 0; c < 2; c++) ST(o + (2 * k + 1) * 256 + c * 64, HI(w[c][k]));
		}
	}
	_mm_sfence();
}
// K bands D apart (in bands) in lockstep, blocks of K*D bands
static void xkband(int K, size_t D) {
	size_t NB = N / 8192;
	for (size_t blk = 0; blk < NB; blk += K * D) for (size_t b0 = blk; b0 < blk + D; b0++)
		for (int t = 0; t < 2; t++) for (int j = 0; j < 8; j++) for (int i = 0; i < 2; i++)
			for (int k = 0; k < K; k++) { size_t b = b0 + k * D;
				it8(src + b * 8192 + t * 4096 + j * 512 + i * 256, dst + b * 16384 + j * 2048 + t * 128 + i * 64, 256); }
	_mm_sfence();
}
static void x2near(void) { xkband(2, 1); }
static void x2d64(void) { xkband(2, 64); }
static void x2d8(void) { xkband(2, 8); }
static void x4d16(void) { xkband(4, 16); }
static void x2half(void) { xkband(2, N / 8192 / 2); }
static void xbb(void) { // fixed (t,j): 64 bands a call
	for (size_t blk = 0; blk < N / 8192; blk += 64) for (int t = 0; t < 2; t++) for (int j = 0; j < 8; j++)
		for (size_t b = blk; b < blk + 64; b++) for (int i = 0; i < 2; i++)
			it8(src + b * 8192 + t * 4096 + j * 512 + i * 256, dst + b * 16384 + j * 2048 + t * 128 + i * 64, 256);
	_mm_sfence();
}
static void s8k2(size_t D) { // two 8192-row groups D groups apart in lockstep
	size_t NG = N / 32768;
	for (size_t blk = 0; blk < NG; blk += 2 * D) for (size_t g = blk; g < blk + D; g++)
		for (size_t i = 0; i < 32768; i += 256) {
			it8(src + g * 32768 + i, dst + g * 65536 + i / 4, 8192);
			it8(src + (g + D) * 32768 + i, dst + (g + D) * 65536 + i / 4, 8192);
		}
	_mm_sfence();
}
static void s8k2d1(void) { s8k2(1); }
static void s8k2h(void) { s8k2(N / 32768 / 2); }
static void xalt(size_t D) { // tiles of bands b and b+D alternating (a call each)
	size_t NB = N / 8192;
	for (size_t blk = 0; blk < NB; blk += 2 * D) for (size_t b0 = blk; b0 < blk + D; b0++)
		for (int t = 0; t < 2; t++) for (int k = 0; k < 2; k++) { size_t b = b0 + k * D;
			for (int j = 0; j < 8; j++) for (int i = 0; i < 2; i++)
				it8(src + b * 8192 + t * 4096 + j * 512 + i * 256, dst + b * 16384 + j * 2048 + t * 128 + i * 64, 256); }
	_mm_sfence();
}
static void xaltg(size_t D) { // groups of bands b and b+D alternating
	size_t NB = N / 8192;
	for (size_t blk = 0; blk < NB; blk += 2 * D) for (size_t b0 = blk; b0 < blk + D; b0++)
		for (int t = 0; t < 2; t++) for (int j = 0; j < 8; j++) for (int k = 0; k < 2; k++) { size_t b = b0 + k * D;
			for (int i = 0; i < 2; i++)
				it8(src + b * 8192 + t * 4096 + j * 512 + i * 256, dst + b * 16384 + j * 2048 + t * 128 + i * 64, 256); }
	_mm_sfence();
}
static void xalt64(void) { xalt(64); }
static void xaltg64(void) { xaltg(64); }
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
	SH = _mm512_set4_epi32(0x0f0b0703, 0x0e0a0602, 0x0d090501, 0x0c080400);
	PM = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
	M = _mm512_set1_epi8(15);
	src = aligned_alloc(4096, N); dst = aligned_alloc(4096, 2 * N); cp = aligned_alloc(4096, N);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < N; i += 8) { x ^= x << 13, x ^= x >> 7, x ^= x << 17; memcpy(src + i, &x, 8); }
	memset(dst, 2, 2 * N); memset(cp, 2, N);
	struct { const char *name; void (*f)(void); } v[] = {{"copy", copy}, {"split8k", split8k}, {"xtile", xtile}, {"xgrp", xgrp},
		{"xburst", xburst}, {"xtburst", xtburst}, {"x2d8", x2d8}, {"x2d64", x2d64}, {"x2half", x2half}, {"x2near", x2near},
		{"x4d16", x4d16}, {"xalt64", xalt64}, {"xaltg64", xaltg64}, {"xbb", xbb}, {"s8k2d1", s8k2d1}, {"s8k2h", s8k2h}};
	enum { NV = sizeof v / sizeof v[0], MAXR = 101 };
	int R = argc > 1 ? atoi(argv[1]) : 31, IT = argc > 2 ? atoi(argv[2]) : 3;
	if (R < 1 || R > MAXR) R = 31;
	if (IT < 1) IT = 3;
	static double t[NV][MAXR];
	for (int r = 0; r < R; r++) for (int q = 0; q < NV; q++) {
		int k = (q + r) % NV; double t0 = now();
		for (int i = 0; i < IT; i++) v[k].f();
		t[k][r] = (now() - t0) / IT;
	}
	for (int k = 0; k < NV; k++) {
		double rr[MAXR];
		for (int r = 0; r < R; r++) rr[r] = t[0][r] / t[k][r];
		qsort(rr, R, sizeof(double), cmpd);
		printf("%-8s ratio to copy median %.3f q1 %.3f q3 %.3f\n", v[k].name, rr[R / 2], rr[R / 4], rr[3 * R / 4]);
	}
}
