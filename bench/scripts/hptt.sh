#!/usr/bin/env bash
# hptt.sh times HPTT (springer13/hptt, a C++ tensor transpose library) beside
# relayout-bench on the suite's cases that HPTT can express (f32 only):
#   f32-transpose           8192² f32, permutation (1,0)
#   f32-perm3210            64⁴ f32, permutation (3,2,1,0)
#   f32-rowmajor-to-T8x128  8192² f32 viewed as (1024,8,64,128), permutation (0,2,1,3)
# at each thread count, one case at a time, HPTT then relayout-bench, so both see the
# same minute of a shared machine. Each tool pairs every sample with the fastest copy of
# the same bytes by as many threads (HPTT's harness: C's memcpy and an AVX non-temporal
# copy; relayout-bench: Go's copy(), its non-temporal copy, C's memcpy) and reports the
# median of fastest_copy_time/case_time; the last column is relayout's GB/s over HPTT's.
#
# HPTT is built from its source with the flags of its Makefile's avx target (g++ -O3
# -march=native -fopenmp -mavx -DHPTT_ARCH_AVX); its plans are MEASURE (auto-tuned; the
# tuning is not timed), beta = 0 into 64-byte-aligned buffers (its streaming stores).
# Its result is checked on 4096 random elements before timing.
#
# Usage (from anywhere):
#   HPTT_DIR=/path/to/hptt [HPTT_BUILD=dir] bash bench/scripts/hptt.sh [threads, default "1,2"] [samples, default 5]
set -euo pipefail
: "${HPTT_DIR:?HPTT_DIR must name a checkout of springer13/hptt (its src/ and include/)}"
threads=${1:-1,2}
count=${2:-5}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/relayout-bench" ./cmd/relayout-bench
# HPTT's objects go to HPTT_BUILD when it is set and kept there (its transpose.cpp
# takes minutes to compile), else to the temporary directory.
build=${HPTT_BUILD:-$tmp/hptt}
flags=(-O3 -std=c++11 -DNDEBUG -fopenmp -march=native -mavx -DHPTT_ARCH_AVX)
if [ ! -f "$build/done" ]; then
	mkdir -p "$build"
	cp -r "$HPTT_DIR/src" "$HPTT_DIR/include" "$build/"
	pids=()
	for f in "$build"/src/*.cpp; do
		g++ "${flags[@]}" -I "$build/include" -c "$f" -o "${f%.cpp}.o" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	touch "$build/done"
fi

cat >"$tmp/harness.cc" <<'EOF'
// harness CASE THREADS SAMPLES: times one HPTT plan; prints "GB/s ratio copyGB/s".
#include <hptt.h>
#include <immintrin.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

static double now() {
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ntcopy copies n bytes (a multiple of 64, 64-byte aligned) with non-temporal stores.
static void ntcopy(char *d, const char *s, size_t n) {
	for (size_t i = 0; i < n; i += 64) {
		__m256i a = _mm256_load_si256((const __m256i *)(s + i));
		__m256i b = _mm256_load_si256((const __m256i *)(s + i + 32));
		_mm256_stream_si256((__m256i *)(d + i), a);
		_mm256_stream_si256((__m256i *)(d + i + 32), b);
	}
	_mm_sfence();
}

// split runs cp on T equal parts of n bytes (multiples of 64), one per thread.
template <class F> static void split(char *d, const char *s, size_t n, int T, F cp) {
#pragma omp parallel num_threads(T)
	{
		int t = omp_get_thread_num();
		size_t part = n / T / 64 * 64, lo = t * part, hi = t == T - 1 ? n : lo + part;
		cp(d + lo, s + lo, hi - lo);
	}
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: harness CASE THREADS SAMPLES\n");
		return 2;
	}
	std::string name = argv[1];
	int T = atoi(argv[2]), samples = atoi(argv[3]);
	std::vector<int> size, perm;
	if (name == "f32-transpose") {
		size = {8192, 8192}, perm = {1, 0};
	} else if (name == "f32-perm3210") {
		size = {64, 64, 64, 64}, perm = {3, 2, 1, 0};
	} else if (name == "f32-rowmajor-to-T8x128") {
		size = {1024, 8, 64, 128}, perm = {0, 2, 1, 3};
	} else {
		fprintf(stderr, "harness: unknown case %s\n", name.c_str());
		return 2;
	}
	int dim = size.size();
	size_t n = 1;
	for (int s : size) n *= s;
	size_t bytes = n * sizeof(float);
	float *A = (float *)aligned_alloc(64, bytes), *B = (float *)aligned_alloc(64, bytes);
	char *C = (char *)aligned_alloc(64, bytes);
	for (size_t i = 0; i < n; i++) A[i] = (float)i;
	memset(B, 0, bytes);
	memset(C, 0, bytes);
	auto plan = hptt::create_plan(perm.data(), dim, 1.0f, A, size.data(), nullptr, 0.0f, B, nullptr,
	                              hptt::MEASURE, T, nullptr, true);
	plan->execute();
	// Row-major: B's dims are A's in perm order; B[j] = A[i] with j[k] = i[perm[k]].
	std::mt19937_64 rng(1);
	for (int c = 0; c < 4096; c++) {
		std::vector<size_t> i(dim);
		size_t ai = 0, bi = 0;
		for (int k = 0; k < dim; k++) i[k] = rng() % size[k], ai = ai * size[k] + i[k];
		for (int k = 0; k < dim; k++) bi = bi * size[perm[k]] + i[perm[k]];
		if (B[bi] != A[ai]) {
			fprintf(stderr, "harness: %s: B[%zu] = %g, want A[%zu] = %g\n", name.c_str(), bi, B[bi], ai, A[ai]);
			return 1;
		}
	}
	std::vector<double> gbs, ratio, copyGBs;
	for (int s = 0; s < samples; s++) {
		double t0 = now();
		split(C, (const char *)A, bytes, T, [](char *d, const char *s, size_t m) { memcpy(d, s, m); });
		double t1 = now();
		split(C, (const char *)A, bytes, T, ntcopy);
		double t2 = now();
		plan->execute();
		double t3 = now();
		double fastest = std::min(t1 - t0, t2 - t1);
		gbs.push_back(bytes / (t3 - t2) / 1e9);
		ratio.push_back(fastest / (t3 - t2));
		copyGBs.push_back(bytes / fastest / 1e9);
	}
	auto median = [](std::vector<double> v) {
		std::sort(v.begin(), v.end());
		return v[v.size() / 2];
	};
	printf("%.2f %.2f %.2f\n", median(gbs), median(ratio), median(copyGBs));
	return 0;
}
EOF
g++ "${flags[@]}" -I "$build/include" "$tmp/harness.cc" "$build"/src/*.o -o "$tmp/harness"

printf '%-24s %-7s %-10s %-10s %-14s %-14s %s\n' case threads "HPTT GB/s" "HPTT ratio" "relayout GB/s" "relayout ratio" "relayout/HPTT"
for t in ${threads//,/ }; do
	for c in f32-transpose f32-perm3210 f32-rowmajor-to-T8x128; do
		read -r hg hr _ < <(OMP_NUM_THREADS=$t "$tmp/harness" "$c" "$t" "$count")
		# The table's line for the case: GB/s is field 5, the ratio to the fastest copy
		# the field that ends in x.
		read -r rg rr < <("$tmp/relayout-bench" --case "^$c\$" --size large --workers "$t" --count "$count" --table 2>/dev/null |
			awk 'NR == 2 { for (i = 6; i <= NF; i++) if ($i ~ /x$/) { r = substr($i, 1, length($i) - 1); break }; print $5, r }')
		awk -v c="$c" -v t="$t" -v hg="$hg" -v hr="$hr" -v rg="$rg" -v rr="$rr" \
			'BEGIN { printf "%-24s %-7s %-10s %-10s %-14s %-14s %.2f\n", c, t, hg, hr, rg, rr, rg / hg }'
	done
done
