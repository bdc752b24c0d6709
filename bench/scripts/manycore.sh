#!/usr/bin/env bash
# manycore.sh measures the relayout suite on a many-core machine that is lent for a few
# minutes and has no Go toolchain: the large cases at 1, 4, 8 and 16 workers, with the
# plans tuned on that machine first (relayout-bench --tune), in one call.
#
#   bash bench/scripts/manycore.sh build           # here: a static relayout-bench in .manycore/
#   bash bench/scripts/manycore.sh run [OUTDIR]    # there: --tune, then the suite, into OUTDIR
#
# build links relayout-bench statically with cgo (so that C's memcpy is among the
# reference copies and no C library of the other machine's is needed) into .manycore/,
# which git ignores, for the other machine's copy of the checkout to carry. run writes
# into OUTDIR (default $OUT, else a new dir under /tmp):
#   machine.txt  uname, lscpu and the CPU relayout-bench sees
#   wisdom.json  what --tune measured there, and tune.txt its figures
#   suite.txt    the suite's samples, benchstat's format (a file for bench/baselines/)
#   table.txt    the summary table: each case's GB/s and ratio to the fastest copy
# Knobs: WORKERS (default 1,4,8,16, cut to the CPUs there), COUNT (samples a case,
# default 3), SIZE (default large), TUNE_COUNT (--tune's samples, default 3: with one,
# a noisy sample can set the worker split far off), TUNE=0 to skip --tune and run on the
# defaults. On 2 cores `WORKERS=1,2 COUNT=1 bash bench/scripts/manycore.sh run` takes about a
# minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=.manycore/relayout-bench

case "${1:-}" in
build)
	mkdir -p .manycore
	CGO_ENABLED=1 go build -ldflags '-linkmode external -extldflags -static' -o "$bin" ./cmd/relayout-bench 2>&1 |
		grep -v 'statically linked applications requires at runtime' || true
	[ -x "$bin" ]
	echo "built $bin ($(du -h "$bin" | cut -f1)); carry .manycore"
	;;
run)
	[ -x "$bin" ] || { echo "manycore.sh: no $bin: run 'bash bench/scripts/manycore.sh build' first" >&2; exit 2; }
	out=${2:-${OUT:-$(mktemp -d /tmp/manycore.XXXXXX)}}
	mkdir -p "$out"
	cpus=$(nproc)
	workers=
	IFS=, read -r -a ws <<<"${WORKERS:-1,4,8,16}"
	for w in "${ws[@]}"; do
		if [ "$w" -le "$cpus" ]; then workers=${workers:+$workers,}$w; fi
	done
	{
		date -u
		uname -a
		lscpu 2>/dev/null || cat /proc/cpuinfo
		echo "nproc: $cpus; workers measured: $workers"
	} >"$out/machine.txt"
	env=()
	if [ "${TUNE:-1}" != 0 ]; then
		"$bin" --tune "$out/wisdom.json" --count "${TUNE_COUNT:-3}" 2>"$out/tune.txt"
		env=(TPULAYOUT_WISDOM="$out/wisdom.json")
	fi
	env "${env[@]}" "$bin" --size "${SIZE:-large}" --workers "$workers" --count "${COUNT:-3}" \
		>"$out/suite.txt" 2>"$out/table.txt"
	cat "$out/table.txt"
	echo "manycore.sh: results in $out"
	;;
*)
	echo "usage: bash bench/scripts/manycore.sh build | run [OUTDIR]" >&2
	exit 2
	;;
esac
